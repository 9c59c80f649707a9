import { OrderStatisticsTree } from './order-statistics-tree.js';

/** Up to this period the deviation is summed directly (faster than the tree for short windows). */
const DIRECT_MAX_PERIOD = 128;

/**
 * Rolling window of the last `period` values with their mean and mean absolute deviation from
 * that mean (the CCI's denominator). The mean absolute deviation cannot be updated in O(1) (the
 * mean moves under every value), so short windows sum it directly in O(period), and longer ones
 * keep the values in an order-statistics tree: O(log period) per push. Either way the sums are
 * recomputed, never carried, so rounding does not drift; values are stored shifted by the first
 * one for precision at large prices. `meanDeviation` is exactly 0 when every value of the window
 * is equal. A NaN value makes both NaN until it leaves the window. Allocates nothing after
 * construction.
 */
export class RollingMeanDeviation {
  private readonly buf: Float64Array;
  private readonly tree: OrderStatisticsTree | null;
  private count = 0;
  private head = 0;
  private shift = Number.NaN;
  private nans = 0;
  /** Mean of the window, as of the last push once full. */
  mean = Number.NaN;
  /** Mean absolute deviation from `mean`, as of the last push once full. */
  meanDeviation = Number.NaN;

  constructor(private readonly period: number) {
    this.buf = new Float64Array(period);
    this.tree = period > DIRECT_MAX_PERIOD ? new OrderStatisticsTree(period) : null;
  }

  /** Whether `period` values have been pushed. */
  full(): boolean {
    return this.count === this.period;
  }

  /** Pushes `x` and, once the window is full, updates `mean` and `meanDeviation`. */
  push(x: number): void {
    if (Number.isNaN(this.shift) && !Number.isNaN(x)) this.shift = x;
    const v = x - this.shift;
    const p = this.period;
    const slot = this.head;
    const tree = this.tree;
    if (this.count === p) {
      const old = this.buf[slot]!;
      if (Number.isNaN(old)) this.nans--;
      if (tree) tree.remove(slot);
    } else this.count++;
    this.buf[slot] = v;
    if (Number.isNaN(v)) this.nans++;
    // The tree cannot order NaN: it holds +Infinity instead, and the result is NaN meanwhile.
    if (tree) tree.insert(slot, Number.isNaN(v) ? Number.POSITIVE_INFINITY : v);
    this.head = slot + 1 === p ? 0 : slot + 1;
    if (this.count < p) return;
    if (this.nans > 0) {
      this.mean = Number.NaN;
      this.meanDeviation = Number.NaN;
    } else if (tree) this.fromTree(tree);
    else this.direct();
  }

  private direct(): void {
    const buf = this.buf;
    const p = this.period;
    const first = buf[0]!;
    let sum = 0;
    let flat = true;
    for (let i = 0; i < p; i++) {
      const b = buf[i]!;
      sum += b;
      if (b !== first) flat = false;
    }
    const m = sum / p;
    this.mean = m + this.shift;
    if (flat) {
      this.meanDeviation = 0;
      return;
    }
    let dev = 0;
    for (let i = 0; i < p; i++) dev += Math.abs(buf[i]! - m);
    this.meanDeviation = dev / p;
  }

  private fromTree(tree: OrderStatisticsTree): void {
    const p = this.period;
    const total = tree.total();
    const m = total / p;
    this.mean = m + this.shift;
    if (tree.allEqual()) {
      this.meanDeviation = 0;
      return;
    }
    // sum |v - m| = (m * below - sumBelow) + (sumAbove - m * above)
    tree.below(m);
    const c = tree.belowCount;
    const s = tree.belowSum;
    const dev = total - 2 * s + m * (2 * c - p);
    this.meanDeviation = dev > 0 ? dev / p : 0;
  }
}
