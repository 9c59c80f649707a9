import { describe, expect, it } from 'vitest';
import { RollingMeanDeviation } from './rolling-mean-deviation.js';

function brute(window: number[]): { mean: number; dev: number } {
  const mean = window.reduce((a, b) => a + b, 0) / window.length;
  return { mean, dev: window.reduce((a, b) => a + Math.abs(b - mean), 0) / window.length };
}

function values(n: number, seed: number, scale: number, base: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return base + Math.round((s / 2147483648) * scale) / 4;
  });
}

describe('RollingMeanDeviation', () => {
  // 128 and below sum directly; above, the order-statistics tree
  it.each([[1], [2], [128], [129], [333]])('period %i: mean and mean deviation of the window, with many equal values', (period) => {
    const xs = values(4000, period, 40, 50_000);
    const w = new RollingMeanDeviation(period);
    xs.forEach((x, i) => {
      w.push(x);
      expect(w.full()).toBe(i + 1 >= period);
      if (i + 1 < period) return;
      const { mean, dev } = brute(xs.slice(i - period + 1, i + 1));
      expect(Math.abs(w.mean - mean)).toBeLessThan(1e-9 * mean);
      expect(Math.abs(w.meanDeviation - dev)).toBeLessThan(1e-9 * Math.max(1, dev));
    });
  });

  it.each([[10], [200]])('period %i: a NaN gives NaN until it leaves the window, then exact values again', (period) => {
    const xs = values(3 * period, 7, 40, 100);
    xs[period + 3] = Number.NaN;
    const w = new RollingMeanDeviation(period);
    xs.forEach((x, i) => {
      w.push(x);
      if (i + 1 < period) return;
      if (i >= period + 3 && i < 2 * period + 3) {
        expect(w.mean).toBeNaN();
        expect(w.meanDeviation).toBeNaN();
        return;
      }
      const { mean, dev } = brute(xs.slice(i - period + 1, i + 1));
      expect(w.mean).toBeCloseTo(mean, 9);
      expect(w.meanDeviation).toBeCloseTo(dev, 9);
    });
  });

  it.each([[5], [200]])('period %i: exactly 0 deviation when the window is flat, even at awkward values', (period) => {
    const w = new RollingMeanDeviation(period);
    for (const x of values(300, 3, 400, 7)) w.push(x);
    for (let i = 0; i < period; i++) w.push(0.1);
    expect(w.meanDeviation).toBe(0);
  });
});
