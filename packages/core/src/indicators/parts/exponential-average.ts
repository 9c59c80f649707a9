/**
 * Exponential moving average, alpha = 2 / (period + 1), seeded with the simple average of the
 * first `period` values: `NaN` until then. O(1) per push.
 */
export class ExponentialAverage {
  private readonly alpha: number;
  private n = 0;
  private seedSum = 0;
  /** The average as of the last push (NaN until `period` values). */
  value = Number.NaN;

  constructor(private readonly period: number) {
    this.alpha = 2 / (period + 1);
  }

  push(x: number): number {
    const n = ++this.n;
    if (n < this.period) this.seedSum += x;
    else if (n === this.period) this.value = (this.seedSum + x) / this.period;
    else this.value += this.alpha * (x - this.value);
    return this.value;
  }
}
