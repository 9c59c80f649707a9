import { WilderAverage } from '../parts/wilder-average.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Adx implements StreamingIndicator {
  readonly outputs = 3;
  private readonly trAvg: WilderAverage;
  private readonly plusAvg: WilderAverage;
  private readonly minusAvg: WilderAverage;
  private readonly adxAvg: WilderAverage;
  private ph = Number.NaN;
  private pl = Number.NaN;
  private pc = Number.NaN;
  constructor(period: number) {
    this.trAvg = new WilderAverage(period);
    this.plusAvg = new WilderAverage(period);
    this.minusAvg = new WilderAverage(period);
    this.adxAvg = new WilderAverage(period);
  }
  update(h: number, l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    out[0] = Number.NaN;
    out[1] = Number.NaN;
    out[2] = Number.NaN;
    const pc = this.pc;
    const up = h - this.ph;
    const down = this.pl - l;
    this.ph = h;
    this.pl = l;
    this.pc = c;
    if (Number.isNaN(pc)) return;
    const str = this.trAvg.push(Math.max(h - l, Math.abs(h - pc), Math.abs(l - pc)));
    const spdm = this.plusAvg.push(up > down && up > 0 ? up : 0);
    const smdm = this.minusAvg.push(down > up && down > 0 ? down : 0);
    if (Number.isNaN(str)) return;
    const plusDi = str > 0 ? (100 * spdm) / str : 0;
    const minusDi = str > 0 ? (100 * smdm) / str : 0;
    const sum = plusDi + minusDi;
    out[0] = this.adxAvg.push(sum > 0 ? (100 * Math.abs(plusDi - minusDi)) / sum : 0);
    out[1] = plusDi;
    out[2] = minusDi;
  }
}

/**
 * `adx(period)`: Wilder's directional movement system. From the second candle on: up move =
 * high - previous high, down move = previous low - low; +DM = the up move when it is positive
 * and larger than the down move, else 0 (-DM alike); TR = the true range with the previous close.
 * +DM, -DM and TR are each smoothed by Wilder (mean of the first `period`, then
 * `(prev * (period - 1) + x) / period`; the ratios equal Wilder's running sums'). +DI = 100 *
 * smoothed +DM / smoothed TR, -DI alike (both 0 when the smoothed TR is 0: no range at all);
 * DX = 100 * |+DI - -DI| / (+DI + -DI), 0 when both are 0; ADX = Wilder average of DX seeded
 * with the mean of its first `period` values. Outputs adx, plusDi, minusDi, each NaN until it is
 * ready: the DIs on candle `period + 1`, ADX on candle `2 * period`.
 */
export function createAdx(period: number): StreamingIndicator {
  return new Adx(period);
}
