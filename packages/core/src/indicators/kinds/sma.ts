import { RollingWindow } from '../parts/rolling-window.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Sma implements StreamingIndicator {
  readonly outputs = 1;
  private readonly w: RollingWindow;
  constructor(period: number) {
    this.w = new RollingWindow(period, false);
  }
  update(_h: number, _l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    this.w.push(c);
    out[0] = this.w.full() ? this.w.mean() : Number.NaN;
  }
}

/** `sma(period)`: simple moving average of closes; first value on the `period`-th candle. */
export function createSma(period: number): StreamingIndicator {
  return new Sma(period);
}
