import type { CandleInput } from './backtest-job.js';

/** 2024-01-01T00:00:00.000Z: the first candle of test fixtures. */
export const T0 = Date.UTC(2024, 0, 1);
export const MINUTE = 60_000;

/** Candles one minute apart from `T0`, from `[open, high, low, close]` rows (volume 1). */
export function candlesOf(rows: [number, number, number, number][], start = T0, step = MINUTE): CandleInput[] {
  return rows.map(([open, high, low, close], i) => ({ time: start + i * step, open, high, low, close, volume: 1 }));
}

/** A flat candle at `price`. */
export function flat(price: number): [number, number, number, number] {
  return [price, price, price, price];
}

/** ISO time of the i-th fixture candle. */
export function at(i: number, start = T0, step = MINUTE): string {
  return new Date(start + i * step).toISOString();
}
