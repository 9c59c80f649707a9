import { describe, expect, it } from 'vitest';
import { FIRST_SLICE, MAX_SLICE, nextSliceCount, nextSliceSize } from './slice-size.js';

describe('nextSliceSize', () => {
  it('aims at sliceMs of CPU at the median trial, so the first trial of a call (which also starts the child) does not shrink the next slice', () => {
    // 4 trials of 25 ms, the first one 70 ms: the mean (36 ms) would give 28, the median gives 40.
    expect(nextSliceSize([70, 25, 25, 25], 1_000)).toBe(40);
    expect(nextSliceSize([25], 1_000)).toBe(40);
  });

  it('stays from 1 to MAX_SLICE, and starts at FIRST_SLICE with nothing known', () => {
    expect(nextSliceSize([5_000, 5_000], 1_000)).toBe(1);
    expect(nextSliceSize([0, 0, 0], 1_000)).toBe(MAX_SLICE);
    expect(nextSliceSize([], 1_000)).toBe(FIRST_SLICE);
  });
});

describe('nextSliceCount', () => {
  it('takes size trials while many remain', () => {
    expect(nextSliceCount(200, 40, 2)).toBe(40);
    expect(nextSliceCount(200, 40, 1)).toBe(40);
  });

  it('near the end splits what remains between the parallel slices, but never below a quarter of size', () => {
    expect(nextSliceCount(60, 40, 2)).toBe(30);
    expect(nextSliceCount(16, 40, 2)).toBe(10);
    expect(nextSliceCount(6, 40, 2)).toBe(6);
  });

  it('a whole run is a few slices, not a tail of one-trial slices', () => {
    let remaining = 200;
    let slices = 0;
    while (remaining > 0) {
      const n = nextSliceCount(remaining, 40, 2);
      expect(n).toBeGreaterThan(0);
      remaining -= n;
      slices++;
    }
    expect(slices).toBeLessThanOrEqual(8);
  });

  it('one at a time, the last slice is what remains', () => {
    expect(nextSliceCount(7, 40, 1)).toBe(7);
  });
});
