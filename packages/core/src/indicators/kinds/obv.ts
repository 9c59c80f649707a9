import type { StreamingIndicator } from '../streaming-indicator.js';

class Obv implements StreamingIndicator {
  readonly outputs = 1;
  private prev = Number.NaN;
  private total = 0;
  update(_h: number, _l: number, c: number, v: number, _t: number, out: Float64Array): void {
    if (c > this.prev) this.total += v;
    else if (c < this.prev) this.total -= v;
    this.prev = c;
    out[0] = this.total;
  }
}

/**
 * `obv()`: on-balance volume. 0 on the first candle (no previous close to compare with); then
 * the candle's volume is added when the close is above the previous close, subtracted when it
 * is below, and nothing changes when it is equal. Ready from the first candle.
 */
export function createObv(): StreamingIndicator {
  return new Obv();
}
