import { describe, expect, it } from 'vitest';
import { RollingWindow } from './rolling-window.js';

function exact(window: number[]): { mean: number; std: number } {
  const mean = window.reduce((a, b) => a + b, 0) / window.length;
  return { mean, std: Math.sqrt(window.reduce((a, b) => a + (b - mean) ** 2, 0) / window.length) };
}

describe('RollingWindow', () => {
  it.each([[2], [20], [5000]])('period %i: keeps the deviation precise after a long drift at large prices', (period) => {
    // From 10,000 to about 60,000 over 50,000 values, with small swings: sums of squares around a stale shift would lose digits.
    const xs = Array.from({ length: 50_000 }, (_, i) => 10_000 + i + Math.sin(i * 1.7) * 3);
    const w = new RollingWindow(period);
    for (const x of xs) w.push(x);
    const { mean, std } = exact(xs.slice(-period));
    expect(Math.abs(w.mean() - mean)).toBeLessThan(1e-9 * mean);
    expect(Math.abs(w.std() - std)).toBeLessThan(1e-9 * std);
  });

  it('a flat window has exactly its value as the mean and no deviation', () => {
    const w = new RollingWindow(3);
    for (const x of [1, 7, 3.3, 0.1, 0.1, 0.1]) w.push(x);
    expect(w.mean()).toBe(0.1);
    expect(w.std()).toBe(0);
    w.push(0.2);
    expect(w.std()).toBeGreaterThan(0);
  });
});
