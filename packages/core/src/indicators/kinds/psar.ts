import type { StreamingIndicator } from '../streaming-indicator.js';

class Psar implements StreamingIndicator {
  readonly outputs = 1;
  private readonly af0: number;
  private n = 0;
  private up = true;
  private sar = Number.NaN;
  private ep = Number.NaN;
  private af: number;
  // the previous candle (1) and the one before it (2)
  private h1 = Number.NaN;
  private l1 = Number.NaN;
  private c1 = Number.NaN;
  private h2 = Number.NaN;
  private l2 = Number.NaN;

  constructor(
    private readonly step: number,
    private readonly max: number,
  ) {
    this.af0 = Math.min(step, max);
    this.af = this.af0;
  }

  update(h: number, l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    const n = ++this.n;
    if (n === 1) {
      this.h1 = h;
      this.l1 = l;
      this.c1 = c;
      out[0] = Number.NaN;
      return;
    }
    if (n === 2) {
      // The first trend, taken to have begun on the first candle.
      this.up = c >= this.c1;
      this.sar = this.up ? this.l1 : this.h1;
      this.ep = this.up ? this.h1 : this.l1;
      this.h2 = this.h1;
      this.l2 = this.l1;
    }
    let sar = this.sar + this.af * (this.ep - this.sar);
    if (this.up) {
      if (sar > this.l1) sar = this.l1;
      if (sar > this.l2) sar = this.l2;
      if (h > this.ep) {
        this.ep = h;
        this.af = Math.min(this.af + this.step, this.max);
      }
      if (l < sar) {
        this.up = false;
        sar = this.ep;
        this.ep = l;
        this.af = this.af0;
      }
    } else {
      if (sar < this.h1) sar = this.h1;
      if (sar < this.h2) sar = this.h2;
      if (l < this.ep) {
        this.ep = l;
        this.af = Math.min(this.af + this.step, this.max);
      }
      if (h > sar) {
        this.up = true;
        sar = this.ep;
        this.ep = h;
        this.af = this.af0;
      }
    }
    this.sar = sar;
    out[0] = sar;
    this.h2 = this.h1;
    this.l2 = this.l1;
    this.h1 = h;
    this.l1 = l;
  }
}

/**
 * `psar(step, max)`: Wilder's parabolic stop and reverse. The value on a candle is the stop in
 * force during that candle, as charts draw it.
 *
 * Start: NaN on the first candle. On the second, the first trend is up when its close is at or
 * above the first close, else down; that trend is taken to have begun on the first candle, with
 * the SAR at the first candle's low (up; its high when down), the extreme point (EP) at its high
 * (up; its low when down) and the acceleration factor (AF) at `step`; the second candle is then
 * handled like every later one.
 *
 * Each candle: SAR = previous SAR + AF * (EP - previous SAR), then, in an up trend, no higher
 * than the lows of the two candles before (in a down trend no lower than their highs; only one
 * candle before on the second candle). A new extreme (a higher high when up, a lower low when
 * down) becomes the EP and raises the AF by `step`, never above `max`. When the candle goes
 * through the SAR (low below it when up, high above it when down; touching is not enough) the
 * trend reverses: that candle's value is the old EP, the EP becomes the candle's low (high) and
 * the AF starts again at `step`. The AF starts at min(step, max).
 */
export function createPsar(step: number, max: number): StreamingIndicator {
  return new Psar(step, max);
}
