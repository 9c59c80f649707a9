/**
 * An ordered multiset of at most `capacity` numbers, each stored in a slot (0 to capacity - 1)
 * the caller chooses, as a treap over typed arrays. Insert, remove and "count and sum of the
 * values below a bound" take O(log n) expected time and allocate nothing after construction.
 * Subtree sums are recomputed from their children on every change, never adjusted by
 * subtraction, so they do not drift however long the tree lives (and an infinite value stops
 * counting in the sums as soon as it is removed). Equal values are ordered by insertion.
 * Values must not be NaN.
 */
export class OrderStatisticsTree {
  private readonly key: Float64Array;
  private readonly seq: Float64Array;
  private readonly prio: Uint32Array;
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly cnt: Int32Array;
  private readonly sum: Float64Array;
  private root = -1;
  private nextSeq = 0;
  private rng = 0x9e3779b9;
  /** Set by `below`: how many values are below the bound. */
  belowCount = 0;
  /** Set by `below`: the sum of the values below the bound. */
  belowSum = 0;

  constructor(capacity: number) {
    this.key = new Float64Array(capacity);
    this.seq = new Float64Array(capacity);
    this.prio = new Uint32Array(capacity);
    this.left = new Int32Array(capacity);
    this.right = new Int32Array(capacity);
    this.cnt = new Int32Array(capacity);
    this.sum = new Float64Array(capacity);
  }

  /** Number of values. */
  size(): number {
    return this.root < 0 ? 0 : this.cnt[this.root]!;
  }

  /** Sum of all values. */
  total(): number {
    return this.root < 0 ? 0 : this.sum[this.root]!;
  }

  /** Adds `value` in `slot`, which must be free. */
  insert(slot: number, value: number): void {
    this.key[slot] = value;
    this.seq[slot] = this.nextSeq++;
    // xorshift32: priorities independent of the values, deterministic from run to run.
    let r = this.rng;
    r ^= r << 13;
    r ^= r >>> 17;
    r ^= r << 5;
    this.rng = r >>> 0;
    this.prio[slot] = this.rng;
    this.left[slot] = -1;
    this.right[slot] = -1;
    this.cnt[slot] = 1;
    this.sum[slot] = value;
    this.root = this.ins(this.root, slot);
  }

  /** Removes the value in `slot`, which must hold one. */
  remove(slot: number): void {
    this.root = this.del(this.root, slot);
  }

  /** Whether every value is the same (true when empty). */
  allEqual(): boolean {
    let lo = this.root;
    if (lo < 0) return true;
    let hi = lo;
    while (this.left[lo]! >= 0) lo = this.left[lo]!;
    while (this.right[hi]! >= 0) hi = this.right[hi]!;
    return this.key[lo] === this.key[hi];
  }

  /** Sets `belowCount` and `belowSum` to the count and sum of the values strictly below `bound`. */
  below(bound: number): void {
    let c = 0;
    let s = 0;
    let n = this.root;
    while (n >= 0) {
      if (this.key[n]! < bound) {
        const l = this.left[n]!;
        if (l >= 0) {
          c += this.cnt[l]!;
          s += this.sum[l]!;
        }
        c++;
        s += this.key[n]!;
        n = this.right[n]!;
      } else n = this.left[n]!;
    }
    this.belowCount = c;
    this.belowSum = s;
  }

  /** Whether slot `a` orders before slot `b`. */
  private before(a: number, b: number): boolean {
    const ka = this.key[a]!;
    const kb = this.key[b]!;
    return ka < kb || (ka === kb && this.seq[a]! < this.seq[b]!);
  }

  private pull(n: number): void {
    const l = this.left[n]!;
    const r = this.right[n]!;
    let c = 1;
    let s = this.key[n]!;
    if (l >= 0) {
      c += this.cnt[l]!;
      s = this.sum[l]! + s;
    }
    if (r >= 0) {
      c += this.cnt[r]!;
      s += this.sum[r]!;
    }
    this.cnt[n] = c;
    this.sum[n] = s;
  }

  private ins(n: number, slot: number): number {
    if (n < 0) return slot;
    if (this.before(slot, n)) {
      const l = this.ins(this.left[n]!, slot);
      this.left[n] = l;
      if (this.prio[l]! > this.prio[n]!) {
        // rotate right: l becomes the subtree's root
        this.left[n] = this.right[l]!;
        this.right[l] = n;
        this.pull(n);
        this.pull(l);
        return l;
      }
    } else {
      const r = this.ins(this.right[n]!, slot);
      this.right[n] = r;
      if (this.prio[r]! > this.prio[n]!) {
        // rotate left: r becomes the subtree's root
        this.right[n] = this.left[r]!;
        this.left[r] = n;
        this.pull(n);
        this.pull(r);
        return r;
      }
    }
    this.pull(n);
    return n;
  }

  private del(n: number, slot: number): number {
    if (n < 0) return n;
    if (n === slot) return this.merge(this.left[n]!, this.right[n]!);
    if (this.before(slot, n)) this.left[n] = this.del(this.left[n]!, slot);
    else this.right[n] = this.del(this.right[n]!, slot);
    this.pull(n);
    return n;
  }

  /** Joins two treaps where every value of `a` orders before every value of `b`. */
  private merge(a: number, b: number): number {
    if (a < 0) return b;
    if (b < 0) return a;
    if (this.prio[a]! > this.prio[b]!) {
      this.right[a] = this.merge(this.right[a]!, b);
      this.pull(a);
      return a;
    }
    this.left[b] = this.merge(a, this.left[b]!);
    this.pull(b);
    return b;
  }
}
