import { AverageTrueRange } from '../parts/average-true-range.js';
import { ExponentialAverage } from '../parts/exponential-average.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Keltner implements StreamingIndicator {
  readonly outputs = 3;
  private readonly ema: ExponentialAverage;
  private readonly atr: AverageTrueRange;
  constructor(
    period: number,
    private readonly multiplier: number,
    atrPeriod: number,
  ) {
    this.ema = new ExponentialAverage(period);
    this.atr = new AverageTrueRange(atrPeriod);
  }
  update(h: number, l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    const mid = this.ema.push(c);
    const range = this.atr.push(h, l, c);
    if (Number.isNaN(mid) || Number.isNaN(range)) {
      out[0] = Number.NaN;
      out[1] = Number.NaN;
      out[2] = Number.NaN;
      return;
    }
    const band = this.multiplier * range;
    out[0] = mid + band;
    out[1] = mid;
    out[2] = mid - band;
  }
}

/**
 * `keltner(period, multiplier, atrPeriod)`: Keltner channels. Middle = EMA(period) of closes
 * (seeded with the SMA, like `ema`); upper and lower = middle plus and minus `multiplier` times
 * Wilder's ATR(atrPeriod) (like `atr`). Outputs upper, middle, lower, all NaN until both the EMA
 * and the ATR are ready.
 */
export function createKeltner(period: number, multiplier: number, atrPeriod: number): StreamingIndicator {
  return new Keltner(period, multiplier, atrPeriod);
}
