import { percentile } from '../research/monte-carlo.js';

/*
 * Small statistics the drift report needs (docs/drift.md), pure functions over plain numbers.
 */

export { percentile };

/** Arithmetic mean; null when empty. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Sample standard deviation (n − 1); null with fewer than 2 values. */
export function sampleStdev(values: readonly number[]): number | null {
  const n = values.length;
  if (n < 2) return null;
  const m = mean(values)!;
  let ss = 0;
  for (const v of values) ss += (v - m) ** 2;
  return Math.sqrt(ss / (n - 1));
}

/**
 * Pearson correlation of two equally long series; null when shorter than `minLength` or when
 * either series has no variance (the coefficient is undefined then).
 */
export function pearson(x: readonly number[], y: readonly number[], minLength = 2): number | null {
  const n = Math.min(x.length, y.length);
  if (n < minLength) return null;
  const mx = mean(x.slice(0, n))!;
  const my = mean(y.slice(0, n))!;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}

/** Largest peak-to-trough fall of `values`, as a fraction of the peak (0..1); 0 when it never falls. */
export function maxDrawdown(values: readonly number[]): number {
  let peak = Number.NEGATIVE_INFINITY;
  let worst = 0;
  for (const v of values) {
    if (v > peak) peak = v;
    else if (peak > 0) worst = Math.max(worst, (peak - v) / peak);
  }
  return worst;
}

/** `a` and `b` equal within `tolerance` relative to the larger magnitude (both null counts as equal). */
export function relativelyEqual(a: number | null, b: number | null, tolerance = 1e-9): boolean {
  if (a === null || b === null) return a === b;
  return a === b || Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
}

/** Epoch ms as the contract's ISO timestamp. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
