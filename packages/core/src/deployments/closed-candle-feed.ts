import { TIMEFRAME_MS, type MarketData, type TimeframeName } from '../ports/market-data.js';
import type { LiveCandle } from './live-session.js';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface ClosedCandleFeed {
  /** Open time of the last candle that has closed at `nowMs`. */
  lastClosedOpenTime(nowMs: number): number;
  /**
   * The closed candles of every symbol opening in (`afterOf(symbol)`, `upTo`], in time order
   * (candles of one time in the order of the symbols).
   */
  between(afterOf: (symbol: string) => number, upTo: number): Promise<LiveCandle[]>;
}

/**
 * Closed candles of a deployment's symbols from the MarketData port (synthetic by default,
 * ccxt, CSV...). Only candles whose close time has passed are returned, never the one forming.
 */
export function createClosedCandleFeed({
  marketData,
  symbols,
  timeframe,
}: {
  marketData: MarketData;
  symbols: readonly string[];
  timeframe: TimeframeName;
}): ClosedCandleFeed {
  const step = TIMEFRAME_MS[timeframe];
  return {
    lastClosedOpenTime: (nowMs) => Math.floor(nowMs / step) * step - step,
    async between(afterOf, upTo) {
      const out: LiveCandle[] = [];
      for (const symbol of symbols) {
        const after = afterOf(symbol);
        if (upTo <= after) continue;
        const { series } = await marketData.getCandles({ symbol, timeframe, startDate: day(Math.max(0, after + 1)), endDate: day(upTo) });
        for (let i = 0; i < series.length; i++) {
          const time = series.time[i]!;
          if (time <= after || time > upTo) continue;
          out.push({ symbol, time, open: series.open[i]!, high: series.high[i]!, low: series.low[i]!, close: series.close[i]!, volume: series.volume[i]! });
        }
      }
      const order = new Map(symbols.map((s, i) => [s, i]));
      return out.sort((a, b) => a.time - b.time || order.get(a.symbol)! - order.get(b.symbol)!);
    },
  };
}
