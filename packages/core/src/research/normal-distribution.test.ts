import { describe, expect, it } from 'vitest';
import { normalCdf, normalPdf, normalQuantile } from './normal-distribution.js';

// References computed with mpmath at 50 significant digits (mp.ncdf, and the root of
// log ncdf(x) = log p for the quantile) for the double nearest each argument, rounded to the
// nearest double (0.999999 as a double is 1 - 1.0000000000287557e-6, and its quantile differs in the 12th digit).
const CDF: [number, number][] = [
  [1.96, 0.9750021048517795],
  [0, 0.5],
  [-1, 0.15865525393145705],
  [0.5, 0.6914624612740131],
  [-2.5, 0.006209665325776135],
  [2.5, 0.9937903346742238],
  [3, 0.9986501019683699],
  [-5, 2.866515718791939e-7],
  [-10, 7.619853024160525e-24],
  [-20, 2.7536241186062337e-89],
  [-37, 5.725571222524577e-300],
];

const QUANTILE: [number, number][] = [
  [0.975, 1.9599639845400538],
  [0.025, -1.9599639845400543],
  [0.9, 1.2815515655446006],
  [0.3, -0.5244005127080408],
  [0.01, -2.326347874040841],
  [1e-5, -4.264890793922825],
  [0.999999, 4.753424308817088],
  [1e-10, -6.361340902404057],
  [1e-300, -37.0470962993612],
];

function relativeError(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.abs(expected);
}

describe('normalCdf', () => {
  it('matches 50-digit references to 1e-13 relative, deep into the lower tail', () => {
    for (const [x, expected] of CDF) expect(relativeError(normalCdf(x), expected), `Phi(${x})`).toBeLessThan(1e-13);
  });

  it('answers Phi(1.96) = 0.9750021048517795', () => {
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 15);
  });

  it('is symmetric, monotone, and saturates at the ends', () => {
    for (let x = 0; x < 8; x += 0.37) expect(normalCdf(x) + normalCdf(-x)).toBeCloseTo(1, 15);
    let previous = 0;
    for (let x = -38; x < 9; x += 0.01) {
      const value = normalCdf(x);
      expect(value).toBeGreaterThanOrEqual(previous);
      previous = value;
    }
    expect(normalCdf(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(normalCdf(Number.POSITIVE_INFINITY)).toBe(1);
    expect(normalCdf(Number.NaN)).toBeNaN();
  });
});

describe('normalPdf', () => {
  it('is the standard normal density, with its precision kept in the tail', () => {
    expect(normalPdf(0)).toBeCloseTo(0.3989422804014327, 16);
    // phi(37) = e^-684.5 / sqrt(2 pi), from mpmath: 2.1200065515246056e-298.
    expect(relativeError(normalPdf(37), 2.1200065515246056e-298)).toBeLessThan(1e-14);
  });
});

describe('normalQuantile', () => {
  it('matches 50-digit references to 1e-13 relative, in both tails', () => {
    for (const [p, expected] of QUANTILE) expect(relativeError(normalQuantile(p), expected), `Phi^-1(${p})`).toBeLessThan(1e-13);
  });

  it('answers Phi^-1(0.975) = 1.959963984540054 and Phi^-1(0.5) = 0', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 14);
    expect(Math.abs(normalQuantile(0.5))).toBeLessThan(1e-16);
  });

  it('inverts normalCdf: to 13 digits in the lower half, as far as doubles near 1 allow in the upper', () => {
    for (let x = -37; x <= 0; x += 0.173) expect(relativeError(normalQuantile(normalCdf(x)), x), `x = ${x}`).toBeLessThan(1e-13);
    // Above 0, Phi(x) is rounded to the spacing of doubles near 1 (1.1e-16), worth 1.1e-16 / phi(x) in x.
    for (let x = 0.1; x < 8; x += 0.173) expect(Math.abs(normalQuantile(normalCdf(x)) - x), `x = ${x}`).toBeLessThan(4e-16 / normalPdf(x));
  });

  it('answers the infinities at 0 and 1 and NaN outside [0, 1]', () => {
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(normalQuantile(1)).toBe(Number.POSITIVE_INFINITY);
    expect(normalQuantile(-0.1)).toBeNaN();
    expect(normalQuantile(1.1)).toBeNaN();
    expect(normalQuantile(Number.NaN)).toBeNaN();
  });
});
