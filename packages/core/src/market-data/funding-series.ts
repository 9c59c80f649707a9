import type { FundingSeries } from '../ports/market-data.js';

/** An empty funding series of the given capacity, to be filled and then trimmed with `sliceFunding`. */
export function allocateFunding(symbol: string, capacity: number): FundingSeries {
  return { symbol, length: capacity, time: new Float64Array(capacity), rate: new Float64Array(capacity) };
}

/** Events [from, to) of a series, sharing its memory. */
export function sliceFunding(series: FundingSeries, from: number, to: number): FundingSeries {
  return { symbol: series.symbol, length: Math.max(0, to - from), time: series.time.subarray(from, to), rate: series.rate.subarray(from, to) };
}

/** The events of `series` at times in [fromMs, toMs), sharing its memory (the series is sorted). */
export function fundingWithin(series: FundingSeries, fromMs: number, toMs: number): FundingSeries {
  let start = 0;
  while (start < series.length && series.time[start]! < fromMs) start++;
  let end = series.length;
  while (end > start && series.time[end - 1]! >= toMs) end--;
  return start === 0 && end === series.length ? series : sliceFunding(series, start, end);
}

/**
 * Merges two series sorted by time into one, sorted with unique times; on equal times the event
 * of `preferred` wins. An empty side gives the other series itself.
 */
export function mergeFunding(base: FundingSeries, preferred: FundingSeries): FundingSeries {
  if (base.length === 0) return preferred;
  if (preferred.length === 0) return base;
  const out = allocateFunding(preferred.symbol, base.length + preferred.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < base.length || j < preferred.length) {
    const tb = i < base.length ? base.time[i]! : Infinity;
    const tp = j < preferred.length ? preferred.time[j]! : Infinity;
    if (tp <= tb) {
      out.time[n] = tp;
      out.rate[n++] = preferred.rate[j++]!;
      if (tp === tb) i++;
    } else {
      out.time[n] = tb;
      out.rate[n++] = base.rate[i++]!;
    }
  }
  return sliceFunding(out, 0, n);
}
