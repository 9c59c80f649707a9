import type { CandleSeries, TimeframeName } from '../ports/market-data.js';

/** An empty series of the given capacity, to be filled and then trimmed with `sliceSeries`. */
export function allocateSeries(symbol: string, timeframe: TimeframeName, capacity: number): CandleSeries {
  return {
    symbol,
    timeframe,
    length: capacity,
    time: new Float64Array(capacity),
    open: new Float64Array(capacity),
    high: new Float64Array(capacity),
    low: new Float64Array(capacity),
    close: new Float64Array(capacity),
    volume: new Float64Array(capacity),
  };
}

/** Copies candle `k` of `from` to index `n` of `to`. */
export function copyCandle(from: CandleSeries, k: number, to: CandleSeries, n: number): void {
  to.time[n] = from.time[k]!;
  to.open[n] = from.open[k]!;
  to.high[n] = from.high[k]!;
  to.low[n] = from.low[k]!;
  to.close[n] = from.close[k]!;
  to.volume[n] = from.volume[k]!;
}

/** Candles [from, to) of a series, sharing its memory. */
export function sliceSeries(series: CandleSeries, from: number, to: number): CandleSeries {
  return {
    symbol: series.symbol,
    timeframe: series.timeframe,
    length: Math.max(0, to - from),
    time: series.time.subarray(from, to),
    open: series.open.subarray(from, to),
    high: series.high.subarray(from, to),
    low: series.low.subarray(from, to),
    close: series.close.subarray(from, to),
    volume: series.volume.subarray(from, to),
  };
}

/**
 * Merges two series sorted by time into one, sorted with unique times; on equal times the
 * candle of `preferred` wins. An empty side gives the other series itself.
 */
export function mergeSeries(base: CandleSeries, preferred: CandleSeries): CandleSeries {
  if (base.length === 0) return preferred;
  if (preferred.length === 0) return base;
  const out = allocateSeries(preferred.symbol, preferred.timeframe, base.length + preferred.length);
  let i = 0;
  let j = 0;
  let n = 0;
  const take = (s: CandleSeries, k: number) => copyCandle(s, k, out, n++);
  while (i < base.length || j < preferred.length) {
    const tb = i < base.length ? base.time[i]! : Infinity;
    const tp = j < preferred.length ? preferred.time[j]! : Infinity;
    if (tp <= tb) {
      take(preferred, j++);
      if (tp === tb) i++;
    } else {
      take(base, i++);
    }
  }
  return sliceSeries(out, 0, n);
}

/** Epoch ms of 00:00 UTC of a `YYYY-MM-DD` day. */
export function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

/** The `YYYY-MM-DD` UTC day of an epoch ms. */
export function dayOf(timeMs: number): string {
  return new Date(timeMs).toISOString().slice(0, 10);
}
