/*
 * Dynamic time warping distance of two series (docs/drift.md, "Annualized DTW distance"). Pure.
 */

/**
 * The classic DTW cost with |a_i − b_j| as the point cost: the cheapest monotone alignment of
 * both series from their first to their last points, every point aligned at least once.
 * O(n × m) time, O(m) memory. 0 when either series is empty.
 */
export function dtwDistance(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return 0;
  let prev = new Float64Array(m + 1).fill(Number.POSITIVE_INFINITY);
  let curr = new Float64Array(m + 1);
  prev[0] = 0;
  for (let i = 1; i <= n; i++) {
    curr.fill(Number.POSITIVE_INFINITY);
    for (let j = 1; j <= m; j++) {
      const cost = Math.abs(a[i - 1]! - b[j - 1]!);
      curr[j] = cost + Math.min(prev[j]!, curr[j - 1]!, prev[j - 1]!);
    }
    [prev, curr] = [curr, prev];
  }
  return prev[m]!;
}
