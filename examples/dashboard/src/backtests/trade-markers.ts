import { toSeconds } from './chart-data.js';

export interface MarkedTrade {
  side: 'long' | 'short';
  entryTime: string;
  exitTime: string;
  entryPrice: number;
  exitPrice: number;
  pnl: number;
}

export interface TradeMarker {
  time: number;
  /** The index of its bar in `barTimes`. */
  bar: number;
  position: 'aboveBar' | 'belowBar';
  shape: 'arrowUp' | 'arrowDown' | 'circle';
  color: string;
  text?: string;
  id: string;
}

export const MARKER_COLORS = { long: '#15803d', short: '#b91c1c', win: '#1d4ed8', loss: '#c2410c' };

/** The index of the last bar at or before `time`, or -1. */
function barAt(barTimes: number[], time: number): number {
  let lo = 0;
  let hi = barTimes.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (barTimes[mid]! <= time) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Two markers per trade on a candle chart: its entry (an arrow up under the bar for a long, down
 * over it for a short) and its exit (a circle, blue for a win, orange for a loss), each on the bar
 * that holds its time. Trades outside the candles shown are counted in `outside`, not marked.
 * Markers come sorted by time, as the chart needs them.
 */
export function tradeMarkers(trades: MarkedTrade[], barTimes: number[], barSeconds: number): { markers: TradeMarker[]; marked: number; outside: number } {
  const markers: TradeMarker[] = [];
  let outside = 0;
  const place = (iso: string) => {
    const t = toSeconds(iso);
    const i = barAt(barTimes, t);
    return i < 0 || t >= barTimes[i]! + barSeconds ? null : i;
  };
  trades.forEach((trade, index) => {
    const entry = place(trade.entryTime);
    const exit = place(trade.exitTime);
    if (entry === null || exit === null) {
      outside++;
      return;
    }
    const long = trade.side === 'long';
    markers.push({
      id: `${index}-entry`,
      time: barTimes[entry]!,
      bar: entry,
      position: long ? 'belowBar' : 'aboveBar',
      shape: long ? 'arrowUp' : 'arrowDown',
      color: long ? MARKER_COLORS.long : MARKER_COLORS.short,
    });
    markers.push({
      id: `${index}-exit`,
      time: barTimes[exit]!,
      bar: exit,
      position: long ? 'aboveBar' : 'belowBar',
      shape: 'circle',
      color: trade.pnl >= 0 ? MARKER_COLORS.win : MARKER_COLORS.loss,
    });
  });
  markers.sort((a, b) => a.time - b.time);
  return { markers, marked: trades.length - outside, outside };
}
