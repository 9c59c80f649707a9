import { RollingWindow } from '../parts/rolling-window.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Bollinger implements StreamingIndicator {
  readonly outputs = 3;
  private readonly w: RollingWindow;
  constructor(
    period: number,
    private readonly multiplier: number,
  ) {
    this.w = new RollingWindow(period);
  }
  update(_h: number, _l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    this.w.push(c);
    if (!this.w.full()) {
      out[0] = Number.NaN;
      out[1] = Number.NaN;
      out[2] = Number.NaN;
      return;
    }
    const mid = this.w.mean();
    const band = this.multiplier * this.w.std();
    out[0] = mid + band;
    out[1] = mid;
    out[2] = mid - band;
  }
}

/** `bollinger(period, multiplier)`: SMA of closes plus and minus `multiplier` population standard deviations. Outputs upper, middle, lower. */
export function createBollinger(period: number, multiplier: number): StreamingIndicator {
  return new Bollinger(period, multiplier);
}
