import { describe, expect, it } from 'vitest';
import { createIndicator } from './create-indicator.js';
import { indicatorSpecProblem, type IndicatorSpec } from './indicator-kinds.js';

/** Runs an indicator over [high, low, close] rows and returns its first output per row. */
function series(spec: IndicatorSpec, rows: [number, number, number][], output = 0): number[] {
  const ind = createIndicator(spec);
  const out = new Float64Array(3);
  return rows.map(([h, l, c]) => {
    ind.update(h, l, c, 1, 0, out);
    return out[output]!;
  });
}
const closes = (xs: number[]) => xs.map((c) => [c, c, c] as [number, number, number]);

describe('indicators against hand-computed values', () => {
  it('SMA', () => {
    expect(series({ kind: 'sma', args: [3] }, closes([1, 2, 3, 4, 5]))).toEqual([NaN, NaN, 2, 3, 4]);
  });

  it('EMA seeded with the SMA, alpha 2 / (period + 1)', () => {
    // period 3: alpha 0.5; seed (1 + 2 + 3) / 3 = 2; then 2 + 0.5 * (4 - 2) = 3; 3 + 0.5 * (8 - 3) = 5.5
    expect(series({ kind: 'ema', args: [3] }, closes([1, 2, 3, 4, 8]))).toEqual([NaN, NaN, 2, 3, 5.5]);
  });

  it("Wilder's RSI", () => {
    // period 2. Changes: +1, -2, +3. First avg gain (1 + 0) / 2 = 0.5, loss (0 + 2) / 2 = 1 -> RSI 100 - 100 / 1.5 = 33.33
    // Next: gain (0.5 * 1 + 3) / 2 = 1.75, loss (1 * 1 + 0) / 2 = 0.5 -> RS 3.5 -> 77.78
    const v = series({ kind: 'rsi', args: [2] }, closes([10, 11, 9, 12]));
    expect(v[0]).toBeNaN();
    expect(v[1]).toBeNaN();
    expect(v[2]).toBeCloseTo(100 - 100 / 1.5, 10);
    expect(v[3]).toBeCloseTo(100 - 100 / 4.5, 10);
    expect(series({ kind: 'rsi', args: [2] }, closes([1, 2, 3]))[2]).toBe(100);
    expect(series({ kind: 'rsi', args: [2] }, closes([1, 1, 1]))[2]).toBe(50);
  });

  it("Wilder's ATR", () => {
    // TR: 2 (first: high - low), max(3, |13-10|, |10-10|) = 3, max(1, |12-12|, |11-12|) = 1
    // period 2: first ATR (2 + 3) / 2 = 2.5, then (2.5 * 1 + 1) / 2 = 1.75
    const v = series({ kind: 'atr', args: [2] }, [
      [11, 9, 10],
      [13, 10, 12],
      [12, 11, 11],
    ]);
    expect(v).toEqual([NaN, 2.5, 1.75]);
  });

  it('Bollinger bands with the population standard deviation', () => {
    const rows = closes([2, 4, 4, 4, 5, 5, 7, 9]); // mean 5, population std 2 over all 8
    const spec: IndicatorSpec = { kind: 'bollinger', args: [8, 2] };
    expect(series(spec, rows, 0).at(-1)).toBeCloseTo(9, 10);
    expect(series(spec, rows, 1).at(-1)).toBeCloseTo(5, 10);
    expect(series(spec, rows, 2).at(-1)).toBeCloseTo(1, 10);
  });

  it('keeps a rolling SMA exact over a long series of large prices', () => {
    const xs = Array.from({ length: 20_000 }, (_, i) => 50_000 + Math.sin(i) * 100);
    const v = series({ kind: 'sma', args: [50] }, closes(xs));
    const exact = xs.slice(-50).reduce((a, b) => a + b, 0) / 50;
    expect(Math.abs(v.at(-1)! - exact)).toBeLessThan(1e-9);
  });

  it('validates specs', () => {
    expect(indicatorSpecProblem({ kind: 'sma', args: [0] })).toMatch(/period/);
    expect(indicatorSpecProblem({ kind: 'sma', args: [2.5] })).toMatch(/period/);
    expect(indicatorSpecProblem({ kind: 'bollinger', args: [20, -1] })).toMatch(/multiplier/);
    expect(indicatorSpecProblem({ kind: 'ema', args: [20] })).toBeNull();
  });
});
