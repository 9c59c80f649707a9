/** Most points a stored equity curve keeps. */
export const MAX_EQUITY_POINTS = 5_000;

/**
 * An equity curve for storage and charts: at most `maxPoints` points. Each bucket of
 * consecutive candles keeps its lowest and highest point (in time order), so drawdowns stay
 * visible; the first and last points are always kept. Metrics are computed on the full curve
 * before this.
 */
export function downsampleEquity(times: Float64Array, equity: Float64Array, maxPoints = MAX_EQUITY_POINTS): Array<{ time: string; equity: number }> {
  const n = equity.length;
  const out: Array<{ time: string; equity: number }> = [];
  const push = (i: number) => out.push({ time: new Date(times[i]!).toISOString(), equity: equity[i]! });
  if (n <= maxPoints) {
    for (let i = 0; i < n; i++) push(i);
    return out;
  }
  const buckets = Math.max(1, Math.floor((maxPoints - 2) / 2));
  const size = (n - 2) / buckets;
  push(0);
  for (let b = 0; b < buckets; b++) {
    const from = 1 + Math.floor(b * size);
    const to = Math.min(n - 1, 1 + Math.floor((b + 1) * size));
    if (from >= to) continue;
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i++) {
      if (equity[i]! < equity[lo]!) lo = i;
      if (equity[i]! > equity[hi]!) hi = i;
    }
    if (lo === hi) push(lo);
    else if (lo < hi) push(lo), push(hi);
    else push(hi), push(lo);
  }
  push(n - 1);
  return out;
}
