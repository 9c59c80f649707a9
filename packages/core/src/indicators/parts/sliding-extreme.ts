/**
 * The largest (or smallest) of the last `period` values pushed, the current one included, kept
 * by a monotonic deque in a ring buffer: amortized O(1) per push, nothing allocated after
 * construction. The window is full once `period` values have been pushed.
 */
export class SlidingExtreme {
  private readonly values: Float64Array;
  /** Sequence number of each kept value, to tell when it leaves the window. */
  private readonly seqs: Float64Array;
  private head = 0;
  private size = 0;
  private seq = 0;

  /** `largest`: true for the maximum, false for the minimum. */
  constructor(
    private readonly period: number,
    private readonly largest: boolean,
  ) {
    this.values = new Float64Array(period);
    this.seqs = new Float64Array(period);
  }

  /** Pushes `x` and returns the extreme of the window that ends with it (of fewer values until full). */
  push(x: number): number {
    const cap = this.period;
    const values = this.values;
    // At most the front can have left the window: one value enters per push.
    if (this.size > 0 && this.seqs[this.head]! <= this.seq - cap) {
      this.head = this.head + 1 === cap ? 0 : this.head + 1;
      this.size--;
    }
    // Values the new one dominates can never be the extreme again.
    while (this.size > 0) {
      let back = this.head + this.size - 1;
      if (back >= cap) back -= cap;
      const b = values[back]!;
      if (this.largest ? b <= x : b >= x) this.size--;
      else break;
    }
    let tail = this.head + this.size;
    if (tail >= cap) tail -= cap;
    values[tail] = x;
    this.seqs[tail] = this.seq;
    this.size++;
    this.seq++;
    return values[this.head]!;
  }

  /** Whether `period` values have been pushed. */
  full(): boolean {
    return this.seq >= this.period;
  }
}
