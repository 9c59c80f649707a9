import { allocateSeries, dayOf, sliceSeries } from '../market-data/candle-series.js';
import type { CandleSeries, MarketData, TimeframeName } from '../ports/market-data.js';
import { TIMEFRAME_MS } from '../ports/market-data.js';
import type { RecordedCandle } from './drift-types.js';

export interface ReplaySeriesRequest {
  symbols: readonly string[];
  timeframe: TimeframeName;
  window: { from: number; to: number };
  /** The recorded candles of the window (any order). */
  recorded: readonly RecordedCandle[];
  /** The strategy's `meta.warmup`. */
  warmup: number;
  /** Now (epoch ms): market candles that have not closed yet are never used. */
  nowMs: number;
}

export interface ReplaySeries {
  /** Per symbol: the warm-up candles before the window, then the window's candles. */
  series: CandleSeries[];
  /** The window's start: the first traded candle. */
  startTime: number;
  /** Candles of the window the deployment did not process, filled from the market data. */
  downtimeCandles: Array<{ symbol: string; time: number }>;
}

interface Bar {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/**
 * The candles a drift replay runs over (docs/drift.md): per symbol, exactly the candles the
 * deployment was given inside the window (as recorded), plus, where the recording has none for a
 * candle time of the window (the deployment was down, or a candle came too late to be traded),
 * the market data's candle, counted as downtime. Before the window come `warmup + 5` candles of
 * the market data, as the live runner warms a session up (deployment-runner.ts `warmUp`), which
 * only feed indicators. The market data failing leaves the replay with the recorded candles alone
 * (no warm-up, no downtime filled), as the live runner starts without warm-up candles then.
 */
export async function loadReplaySeries(marketData: MarketData, request: ReplaySeriesRequest): Promise<ReplaySeries> {
  const { timeframe, window } = request;
  const step = TIMEFRAME_MS[timeframe];
  const warmCount = request.warmup > 0 ? Math.floor(request.warmup) + 5 : 0;
  const marketFrom = window.from - warmCount * step;
  const marketTo = window.to;
  const downtimeCandles: ReplaySeries['downtimeCandles'] = [];

  const series = await Promise.all(
    request.symbols.map(async (symbol) => {
      const recorded = new Map<number, Bar>();
      for (const c of request.recorded) if (c.symbol === symbol && c.time >= window.from && c.time < window.to) recorded.set(c.time, c);
      const bars: Bar[] = [];
      const market = await loadMarket(marketData, symbol, timeframe, marketFrom, marketTo);
      const warm = market.filter((b) => b.time < window.from).slice(-warmCount);
      bars.push(...warm);
      const inWindow = new Map<number, Bar>(recorded);
      for (const b of market) {
        if (b.time < window.from || b.time >= window.to || b.time + step > request.nowMs || inWindow.has(b.time)) continue;
        inWindow.set(b.time, b);
        downtimeCandles.push({ symbol, time: b.time });
      }
      bars.push(...[...inWindow.values()].sort((a, b) => a.time - b.time));
      return toSeries(symbol, timeframe, bars);
    }),
  );
  downtimeCandles.sort((a, b) => a.time - b.time || a.symbol.localeCompare(b.symbol));
  return { series, startTime: window.from, downtimeCandles };
}

async function loadMarket(marketData: MarketData, symbol: string, timeframe: TimeframeName, from: number, to: number): Promise<Bar[]> {
  if (to <= from) return [];
  try {
    const { series } = await marketData.getCandles({ symbol, timeframe, startDate: dayOf(from), endDate: dayOf(to - 1) });
    const out: Bar[] = [];
    for (let i = 0; i < series.length; i++) {
      const time = series.time[i]!;
      if (time < from || time >= to) continue;
      out.push({ time, open: series.open[i]!, high: series.high[i]!, low: series.low[i]!, close: series.close[i]!, volume: series.volume[i]! });
    }
    return out;
  } catch {
    return [];
  }
}

function toSeries(symbol: string, timeframe: TimeframeName, bars: readonly Bar[]): CandleSeries {
  const s = allocateSeries(symbol, timeframe, bars.length);
  bars.forEach((b, n) => {
    s.time[n] = b.time;
    s.open[n] = b.open;
    s.high[n] = b.high;
    s.low[n] = b.low;
    s.close[n] = b.close;
    s.volume[n] = b.volume;
  });
  return sliceSeries(s, 0, bars.length);
}
