import { SlidingExtreme } from '../parts/sliding-extreme.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Extreme implements StreamingIndicator {
  readonly outputs = 1;
  private readonly w: SlidingExtreme;
  constructor(
    period: number,
    private readonly highest: boolean,
  ) {
    this.w = new SlidingExtreme(period, highest);
  }
  update(h: number, l: number, _c: number, _v: number, _t: number, out: Float64Array): void {
    const x = this.w.push(this.highest ? h : l);
    out[0] = this.w.full() ? x : Number.NaN;
  }
}

/** `highest(period)`: the highest high of the last `period` candles, the current one included. */
export function createHighest(period: number): StreamingIndicator {
  return new Extreme(period, true);
}

/** `lowest(period)`: the lowest low of the last `period` candles, the current one included. */
export function createLowest(period: number): StreamingIndicator {
  return new Extreme(period, false);
}
