import { RollingWindow } from '../parts/rolling-window.js';
import { SlidingExtreme } from '../parts/sliding-extreme.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Stochastic implements StreamingIndicator {
  readonly outputs = 2;
  private readonly highs: SlidingExtreme;
  private readonly lows: SlidingExtreme;
  private readonly kWindow: RollingWindow;
  private readonly dWindow: RollingWindow;
  constructor(kPeriod: number, kSmoothing: number, dPeriod: number) {
    this.highs = new SlidingExtreme(kPeriod, true);
    this.lows = new SlidingExtreme(kPeriod, false);
    this.kWindow = new RollingWindow(kSmoothing);
    this.dWindow = new RollingWindow(dPeriod);
  }
  update(h: number, l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    const hh = this.highs.push(h);
    const ll = this.lows.push(l);
    out[0] = Number.NaN;
    out[1] = Number.NaN;
    if (!this.highs.full()) return;
    const range = hh - ll;
    this.kWindow.push(range === 0 ? 50 : (100 * (c - ll)) / range);
    if (!this.kWindow.full()) return;
    const k = this.kWindow.mean();
    out[0] = k;
    this.dWindow.push(k);
    if (this.dWindow.full()) out[1] = this.dWindow.mean();
  }
}

/**
 * `stochastic(kPeriod, kSmoothing, dPeriod)`, the slow stochastic oscillator (0 to 100). Raw %K
 * = 100 * (close - lowest low) / (highest high - lowest low) over the last `kPeriod` candles,
 * the current one included, and 50 when that range is flat (highest high = lowest low: the close
 * is neither near the top nor the bottom); %K = SMA(kSmoothing) of raw %K (kSmoothing 1: the
 * fast stochastic); %D = SMA(dPeriod) of %K. Outputs k, d, each NaN until it is ready: %K on
 * candle kPeriod + kSmoothing - 1, %D dPeriod - 1 candles later.
 */
export function createStochastic(kPeriod: number, kSmoothing: number, dPeriod: number): StreamingIndicator {
  return new Stochastic(kPeriod, kSmoothing, dPeriod);
}
