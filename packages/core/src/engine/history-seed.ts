import { createTimeframeBuckets } from './model/timeframe-buckets.js';

/** Candle columns of one symbol, oldest first (`time` is the open time). */
export interface CandleColumnsLike {
  time: ArrayLike<number>;
  open: ArrayLike<number>;
  high: ArrayLike<number>;
  low: ArrayLike<number>;
  close: ArrayLike<number>;
  volume: ArrayLike<number>;
}

/** Numbers before the columns of a seed: the row count, then the forming bucket (start NaN when none). */
export const HISTORY_SEED_HEADER = 7;

/**
 * What the guest's `ctx.history` needs when a strategy first reads a symbol at a timeframe: the
 * last `max` candles closed among the first `end` base candles (for a higher timeframe, built by
 * the bucket rule of engine/model/timeframe-buckets.ts) and the bucket still forming, so the
 * guest can go on from there candle by candle.
 *
 * Layout: `[rows, formingStart, formingOpen, formingHigh, formingLow, formingClose,
 * formingVolume]`, then six columns of `rows` numbers: time, open, high, low, close, volume.
 */
export function buildHistorySeed(c: CandleColumnsLike, end: number, tfMs: number, baseMs: number, max: number): Float64Array {
  if (tfMs === baseMs) {
    const from = Math.max(0, end - max);
    const rows = end - from;
    const out = new Float64Array(HISTORY_SEED_HEADER + 6 * rows);
    out[0] = rows;
    out[1] = Number.NaN;
    const cols = [c.time, c.open, c.high, c.low, c.close, c.volume];
    for (let k = 0; k < 6; k++) {
      const col = cols[k]!;
      const at = HISTORY_SEED_HEADER + k * rows;
      for (let i = 0; i < rows; i++) out[at + i] = col[from + i]!;
    }
    return out;
  }
  // A ring of the last `max` closed buckets.
  const ring = new Float64Array(6 * max);
  let closed = 0;
  const buckets = createTimeframeBuckets(tfMs, baseMs, (t, o, h, l, cl, v) => {
    const at = (closed % max) * 6;
    ring[at] = t;
    ring[at + 1] = o;
    ring[at + 2] = h;
    ring[at + 3] = l;
    ring[at + 4] = cl;
    ring[at + 5] = v;
    closed++;
  });
  for (let i = 0; i < end; i++) buckets.push(c.time[i]!, c.open[i]!, c.high[i]!, c.low[i]!, c.close[i]!, c.volume[i]!);
  const rows = Math.min(closed, max);
  const out = new Float64Array(HISTORY_SEED_HEADER + 6 * rows);
  const f = buckets.forming;
  out.set([rows, f.start, f.open, f.high, f.low, f.close, f.volume]);
  for (let r = 0; r < rows; r++) {
    const at = ((closed - rows + r) % max) * 6;
    for (let k = 0; k < 6; k++) out[HISTORY_SEED_HEADER + k * rows + r] = ring[at + k]!;
  }
  return out;
}
