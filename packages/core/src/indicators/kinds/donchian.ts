import { SlidingExtreme } from '../parts/sliding-extreme.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Donchian implements StreamingIndicator {
  readonly outputs = 3;
  private readonly highs: SlidingExtreme;
  private readonly lows: SlidingExtreme;
  constructor(period: number) {
    this.highs = new SlidingExtreme(period, true);
    this.lows = new SlidingExtreme(period, false);
  }
  update(h: number, l: number, _c: number, _v: number, _t: number, out: Float64Array): void {
    const upper = this.highs.push(h);
    const lower = this.lows.push(l);
    if (!this.highs.full()) {
      out[0] = Number.NaN;
      out[1] = Number.NaN;
      out[2] = Number.NaN;
      return;
    }
    out[0] = upper;
    out[1] = (upper + lower) / 2;
    out[2] = lower;
  }
}

/**
 * `donchian(period)`: the highest high and the lowest low of the last `period` candles, the
 * current one included, and their average. Outputs upper, middle, lower; first values on the
 * `period`-th candle.
 */
export function createDonchian(period: number): StreamingIndicator {
  return new Donchian(period);
}
