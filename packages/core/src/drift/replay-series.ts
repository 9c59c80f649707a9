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
 *
 * Cost: the market data is asked for the warm-up candles and, inside the window, only for the
 * span between the first and the last gap of the recording (none for a recording without gaps),
 * so a complete 30-day `1m` recording does not load 30 days of market candles again.
 */
export async function loadReplaySeries(marketData: MarketData, request: ReplaySeriesRequest): Promise<ReplaySeries> {
  const { timeframe, window } = request;
  const step = TIMEFRAME_MS[timeframe];
  const warmCount = request.warmup > 0 ? Math.floor(request.warmup) + 5 : 0;
  const downtimeCandles: ReplaySeries['downtimeCandles'] = [];

  const series = await Promise.all(
    request.symbols.map(async (symbol) => {
      const recorded = recordedBars(request.recorded, symbol, window);
      const gaps = gapSpan(recorded, window, step);
      const [market, inGaps] = await Promise.all([
        warmCount > 0 ? loadMarket(marketData, symbol, timeframe, window.from - warmCount * step, window.from) : [],
        gaps ? loadMarket(marketData, symbol, timeframe, gaps.from, gaps.to) : [],
      ]);
      const warm = market.slice(-warmCount);
      if (inGaps.length === 0) return toSeries(symbol, timeframe, warm, recorded);
      const times = new Set(recorded.map((b) => b.time));
      const missed: Bar[] = [];
      for (const b of inGaps) {
        if (b.time < window.from || b.time >= window.to || b.time + step > request.nowMs || times.has(b.time)) continue;
        missed.push(b);
        downtimeCandles.push({ symbol, time: b.time });
      }
      return toSeries(symbol, timeframe, warm, missed.length === 0 ? recorded : [...recorded, ...missed].sort((a, b) => a.time - b.time));
    }),
  );
  downtimeCandles.sort((a, b) => a.time - b.time || a.symbol.localeCompare(b.symbol));
  return { series, startTime: window.from, downtimeCandles };
}

/** The symbol's recorded candles inside the window, in time order, one per time (the last given for a time). */
function recordedBars(recorded: readonly RecordedCandle[], symbol: string, window: { from: number; to: number }): Bar[] {
  const bars: Bar[] = [];
  let ordered = true;
  for (const c of recorded) {
    if (c.symbol !== symbol || c.time < window.from || c.time >= window.to) continue;
    if (bars.length > 0 && c.time <= bars[bars.length - 1]!.time) ordered = false;
    bars.push(c);
  }
  if (ordered) return bars;
  const byTime = new Map<number, Bar>();
  for (const b of bars) byTime.set(b.time, b);
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

/**
 * The span of the window the recording leaves uncovered, from its first gap to the end of its
 * last (before the first recorded candle, between two recorded candles more than a step apart,
 * after the last one's close), or null when every candle time of the window is recorded.
 */
function gapSpan(recorded: readonly Bar[], window: { from: number; to: number }, step: number): { from: number; to: number } | null {
  if (recorded.length === 0) return { from: window.from, to: window.to };
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  const gap = (a: number, b: number) => {
    from = Math.min(from, a);
    to = Math.max(to, b);
  };
  if (recorded[0]!.time > window.from) gap(window.from, recorded[0]!.time);
  for (let i = 1; i < recorded.length; i++) if (recorded[i]!.time - recorded[i - 1]!.time > step) gap(recorded[i - 1]!.time + 1, recorded[i]!.time);
  const last = recorded[recorded.length - 1]!.time;
  if (last + step < window.to) gap(last + 1, window.to);
  return from < to ? { from, to } : null;
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

/** One series of the warm-up bars then the window's bars. */
function toSeries(symbol: string, timeframe: TimeframeName, warm: readonly Bar[], window: readonly Bar[]): CandleSeries {
  const s = allocateSeries(symbol, timeframe, warm.length + window.length);
  let n = 0;
  for (const part of [warm, window]) {
    for (const b of part) {
      s.time[n] = b.time;
      s.open[n] = b.open;
      s.high[n] = b.high;
      s.low[n] = b.low;
      s.close[n] = b.close;
      s.volume[n] = b.volume;
      n++;
    }
  }
  return sliceSeries(s, 0, n);
}
