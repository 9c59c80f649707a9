import { RollingWindow } from '../parts/rolling-window.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Stddev implements StreamingIndicator {
  readonly outputs = 1;
  private readonly w: RollingWindow;
  constructor(period: number) {
    this.w = new RollingWindow(period);
  }
  update(_h: number, _l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    this.w.push(c);
    out[0] = this.w.full() ? this.w.std() : Number.NaN;
  }
}

/** `stddev(period)`: population standard deviation (divided by `period`, not `period - 1`) of the last `period` closes. */
export function createStddev(period: number): StreamingIndicator {
  return new Stddev(period);
}
