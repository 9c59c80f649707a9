import { AverageTrueRange } from '../parts/average-true-range.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Atr implements StreamingIndicator {
  readonly outputs = 1;
  private readonly atr: AverageTrueRange;
  constructor(period: number) {
    this.atr = new AverageTrueRange(period);
  }
  update(h: number, l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    out[0] = this.atr.push(h, l, c);
  }
}

/** `atr(period)`: Wilder's average true range; the first candle's true range is high - low. */
export function createAtr(period: number): StreamingIndicator {
  return new Atr(period);
}
