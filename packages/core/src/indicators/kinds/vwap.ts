import type { StreamingIndicator } from '../streaming-indicator.js';

const DAY_MS = 86_400_000;

class Vwap implements StreamingIndicator {
  readonly outputs = 1;
  private day = Number.NaN;
  private pv = 0;
  private vol = 0;
  update(h: number, l: number, c: number, v: number, t: number, out: Float64Array): void {
    const d = Math.floor(t / DAY_MS);
    if (d !== this.day) {
      this.day = d;
      this.pv = 0;
      this.vol = 0;
    }
    if (v > 0) {
      this.pv += ((h + l + c) / 3) * v;
      this.vol += v;
    }
    out[0] = this.vol > 0 ? this.pv / this.vol : Number.NaN;
  }
}

/**
 * `vwap()`: the session VWAP, the volume-weighted average of the typical price (high + low +
 * close) / 3 since the start of the candle's UTC day (by its open time): it starts afresh with
 * the first candle of each UTC day. A candle with no volume (0, or not a positive number) changes
 * nothing; while the session has had no volume at all the value is NaN. At a timeframe of one day
 * or longer every candle is its own session, so the value is the candle's typical price.
 */
export function createVwap(): StreamingIndicator {
  return new Vwap();
}
