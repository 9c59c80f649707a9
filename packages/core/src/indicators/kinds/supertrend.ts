import { AverageTrueRange } from '../parts/average-true-range.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Supertrend implements StreamingIndicator {
  readonly outputs = 2;
  private readonly atr: AverageTrueRange;
  private ready = false;
  private upper = Number.NaN;
  private lower = Number.NaN;
  private up = false;
  private prevClose = Number.NaN;

  constructor(
    period: number,
    private readonly multiplier: number,
  ) {
    this.atr = new AverageTrueRange(period);
  }

  update(h: number, l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    const range = this.atr.push(h, l, c);
    if (Number.isNaN(range)) {
      out[0] = Number.NaN;
      out[1] = Number.NaN;
      return;
    }
    const mid = (h + l) / 2;
    const basicUpper = mid + this.multiplier * range;
    const basicLower = mid - this.multiplier * range;
    if (!this.ready) {
      this.ready = true;
      this.upper = basicUpper;
      this.lower = basicLower;
      this.up = c > basicUpper;
    } else {
      if (basicUpper < this.upper || this.prevClose > this.upper) this.upper = basicUpper;
      if (basicLower > this.lower || this.prevClose < this.lower) this.lower = basicLower;
      this.up = this.up ? c >= this.lower : c > this.upper;
    }
    this.prevClose = c;
    out[0] = this.up ? this.lower : this.upper;
    out[1] = this.up ? 1 : -1;
  }
}

/**
 * `supertrend(period, multiplier)`: bands at hl2 = (high + low) / 2 plus and minus `multiplier`
 * times Wilder's ATR(period) (like `atr`). The final bands ratchet: the upper band only moves
 * down (it takes the new basic band when that is lower, or when the previous close was above the
 * previous final upper band), the lower band only moves up (likewise). In a down trend the value
 * is the final upper band, and a close above it turns the trend up; in an up trend the value is
 * the final lower band, and a close below it turns the trend down. On the first candle with an
 * ATR (candle `period`) the final bands are the basic ones and the trend is up only if the close
 * is above the upper band. Outputs value and direction (+1 up, -1 down), NaN until the ATR is
 * ready.
 */
export function createSupertrend(period: number, multiplier: number): StreamingIndicator {
  return new Supertrend(period, multiplier);
}
