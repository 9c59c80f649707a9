import { ExponentialAverage } from '../parts/exponential-average.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Ema implements StreamingIndicator {
  readonly outputs = 1;
  private readonly ema: ExponentialAverage;
  constructor(period: number) {
    this.ema = new ExponentialAverage(period);
  }
  update(_h: number, _l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    out[0] = this.ema.push(c);
  }
}

/** `ema(period)`: exponential moving average of closes, alpha = 2 / (period + 1), seeded with the SMA of the first `period` closes. */
export function createEma(period: number): StreamingIndicator {
  return new Ema(period);
}
