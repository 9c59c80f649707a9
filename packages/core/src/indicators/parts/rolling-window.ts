/**
 * Rolling window of the last `period` values with their mean and population standard deviation
 * in amortized O(1) per push. The sums are kept of the values minus a shift, a value of the
 * window, so sums of squares keep their precision at large prices and after long drifts: every
 * `period` pushes they are recomputed exactly from the stored values around the latest value, so
 * rounding never accumulates and the shift never strays far from the window (a window asked for
 * its mean alone, which cancels nothing, is recomputed every 4096 pushes). A window of equal
 * values (and any window of one value) has exactly that value as its mean and a deviation of
 * exactly 0. Allocates nothing after construction.
 */
export class RollingWindow {
  private readonly buf: Float64Array;
  private count = 0;
  private head = 0;
  private sum = 0;
  private sumSq = 0;
  private shift = Number.NaN;
  private sinceExact = 0;
  private last = Number.NaN;
  /** How many of the latest values are equal to `last`. */
  private run = 0;

  /** Pushes between exact recomputes. */
  private readonly exactEvery: number;

  /** `deviation`: whether `std()` will be asked for (its sums of squares need the recompute every `period` pushes). */
  constructor(
    private readonly period: number,
    deviation = true,
  ) {
    this.buf = new Float64Array(period);
    this.exactEvery = deviation ? period : Math.max(period, 4096);
  }

  push(x: number): void {
    if (Number.isNaN(this.shift)) this.shift = x;
    const buf = this.buf;
    if (this.count === this.period) {
      const old = buf[this.head]! - this.shift;
      this.sum -= old;
      this.sumSq -= old * old;
    } else this.count++;
    buf[this.head] = x;
    this.head = this.head + 1 === this.period ? 0 : this.head + 1;
    const v = x - this.shift;
    this.sum += v;
    this.sumSq += v * v;
    this.run = x === this.last ? this.run + 1 : 1;
    this.last = x;
    if (++this.sinceExact >= this.exactEvery) this.exact();
  }

  private exact(): void {
    this.sinceExact = 0;
    if (!Number.isNaN(this.last)) this.shift = this.last;
    const shift = this.shift;
    let sum = 0;
    let sumSq = 0;
    for (let i = 0; i < this.count; i++) {
      const v = this.buf[i]! - shift;
      sum += v;
      sumSq += v * v;
    }
    this.sum = sum;
    this.sumSq = sumSq;
  }

  /** Whether `period` values have been pushed. */
  full(): boolean {
    return this.count === this.period;
  }

  /** Whether every value of the (full) window is the same. */
  private flat(): boolean {
    return this.run >= this.period;
  }

  /** Mean of the window (meaningful once full). */
  mean(): number {
    return this.flat() ? this.last : this.sum / this.period + this.shift;
  }

  /** Population standard deviation of the window (meaningful once full); never negative, 0 for equal values. */
  std(): number {
    if (this.flat()) return 0;
    const m = this.sum / this.period;
    const variance = this.sumSq / this.period - m * m;
    return variance > 0 ? Math.sqrt(variance) : 0;
  }
}
