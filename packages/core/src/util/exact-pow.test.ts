import { describe, expect, it } from 'vitest';
import { exactPow } from './exact-pow.js';

/** The distance between two doubles in units in the last place. */
function ulps(a: number, b: number): number {
  const view = new DataView(new ArrayBuffer(16));
  view.setFloat64(0, a);
  view.setFloat64(8, b);
  return Number(view.getBigInt64(0) - view.getBigInt64(8));
}

describe('exactPow', () => {
  it('is exact where the answer is a double', () => {
    expect(exactPow(2, 10)).toBe(1024);
    expect(exactPow(4, 0.5)).toBe(2);
    expect(exactPow(1024, -0.1)).toBe(0.5);
    expect(exactPow(9, 1.5)).toBe(27);
    expect(exactPow(1.5, 2)).toBe(2.25);
    expect(exactPow(10, -2)).toBe(0.01);
    expect(exactPow(7, 1)).toBe(7);
    expect(exactPow(3, 0)).toBe(1);
  });

  it('agrees with ** to within one unit in the last place', () => {
    let state = 42;
    const random = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 2 ** 32;
    };
    for (let i = 0; i < 2000; i++) {
      const x = 0.01 + random() * 20;
      const y = (random() - 0.5) * 40;
      expect(Math.abs(ulps(exactPow(x, y), x ** y))).toBeLessThanOrEqual(1);
    }
  });

  it('is correctly rounded where a libm is not: values checked with 80-digit decimal arithmetic', () => {
    // Computed with Python's decimal module at 80 digits and rounded once to a double; Node 20's
    // ** is one unit off on each of these.
    const cases: Array<[number, number, number]> = [
      [11.832793227620423, -9.676101673394442, 4.1371228559352235e-11],
      [15.62966888140887, 4.973685704171658, 867622.7671189852],
      [16.593771756850185, 6.569335237145424, 103330471.92097826],
      [12.627192002944648, -11.316876523196697, 3.44070239037229e-13],
      [3.453006915040314, 18.774927984923124, 12723843807.969622],
    ];
    for (const [x, y, expected] of cases) expect(exactPow(x, y)).toBe(expected);
  });

  it('answers as ** outside finite positive bases', () => {
    expect(exactPow(0, 2)).toBe(0);
    expect(exactPow(-8, 1 / 3)).toBeNaN();
    expect(exactPow(Number.NaN, 1)).toBeNaN();
    expect(exactPow(2, Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(exactPow(10, 400)).toBe(Number.POSITIVE_INFINITY);
    expect(exactPow(10, -400)).toBe(0);
  });

  it('gives the CAGR of a doubling over two years as sqrt(2) - 1 to the bit', () => {
    expect(exactPow(2, 0.5)).toBe(Math.SQRT2);
    expect(exactPow(20_000 / 10_000, 1 / 2) - 1).toBe(Math.sqrt(2) - 1);
  });
});
