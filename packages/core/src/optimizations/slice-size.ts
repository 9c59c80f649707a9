/** Trials in the first slice, before a slice's CPU time is known. */
export const FIRST_SLICE = 4;
/** Most trials in one slice. */
export const MAX_SLICE = 256;

/**
 * Trials in the next slice: about `sliceMs` of CPU at the median CPU time of the last slice's
 * trials, from 1 to `MAX_SLICE`. The median, not the mean: the first trial of a `runTrials` call
 * also pays the child's start of the call (a WASM instance and the guest runtime evaluated, tens of
 * milliseconds), which would make a small slice's trials look slower than they are and keep the
 * next slices small.
 */
export function nextSliceSize(trialCpuMs: readonly number[], sliceMs: number): number {
  if (trialCpuMs.length === 0) return FIRST_SLICE;
  const sorted = [...trialCpuMs].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return Math.max(1, Math.min(MAX_SLICE, Math.round(sliceMs / Math.max(1, median))));
}

/**
 * How many of the `remaining` trials the next slice takes: `size`, and near the end less, so that
 * `parallel` slices running at once finish about together (no child idles through a long last
 * slice). Never below a quarter of `size` though: each slice pays a fixed cost in its child and in
 * the store, and slices that run one after the other (the pool's per-user cap may give one
 * optimization fewer children than `parallel`) gain nothing from being small.
 */
export function nextSliceCount(remaining: number, size: number, parallel: number): number {
  if (parallel <= 1) return Math.min(size, remaining);
  const even = Math.ceil(remaining / parallel);
  return Math.max(0, Math.min(remaining, size, Math.max(even, Math.ceil(size / 4))));
}
