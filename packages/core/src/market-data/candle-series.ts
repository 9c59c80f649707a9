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

/** Epoch ms of 00:00 UTC of a `YYYY-MM-DD` day. */
export function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

/** The `YYYY-MM-DD` UTC day of an epoch ms. */
export function dayOf(timeMs: number): string {
  return new Date(timeMs).toISOString().slice(0, 10);
}
