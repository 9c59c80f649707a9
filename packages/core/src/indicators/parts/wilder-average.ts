/**
 * Wilder's smoothing (an exponential average with alpha = 1 / period, also called RMA or SMMA):
 * the mean of the first `period` values, then `(previous * (period - 1) + x) / period`. `NaN`
 * until `period` values. O(1) per push.
 */
export class WilderAverage {
  private n = 0;
  private seedSum = 0;
  /** The average as of the last push (NaN until `period` values). */
  value = Number.NaN;

  constructor(private readonly period: number) {}

  push(x: number): number {
    const n = ++this.n;
    const p = this.period;
    if (n < p) this.seedSum += x;
    else if (n === p) this.value = (this.seedSum + x) / p;
    else this.value = (this.value * (p - 1) + x) / p;
    return this.value;
  }
}
