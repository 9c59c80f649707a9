import { describe, expect, it } from 'vitest';
import { SlidingExtreme } from './sliding-extreme.js';

/** Small integers, so equal values (the deque's ties) are frequent. */
function values(n: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % 17;
  });
}

describe('SlidingExtreme', () => {
  it.each([[1], [2], [3], [16], [17], [100]])('equals the max and min of the last %i values, ties included', (period) => {
    const xs = values(3000, period);
    const max = new SlidingExtreme(period, true);
    const min = new SlidingExtreme(period, false);
    xs.forEach((x, i) => {
      const window = xs.slice(Math.max(0, i - period + 1), i + 1);
      expect(max.push(x)).toBe(Math.max(...window));
      expect(min.push(x)).toBe(Math.min(...window));
      expect(max.full()).toBe(i + 1 >= period);
    });
  });

  it('handles a monotonic run longer than the window (the deque at its capacity)', () => {
    const max = new SlidingExtreme(5, true);
    const min = new SlidingExtreme(5, false);
    for (let i = 0; i < 50; i++) {
      expect(max.push(100 - i)).toBe(100 - Math.max(0, i - 4));
      expect(min.push(i)).toBe(Math.max(0, i - 4));
    }
  });
});
