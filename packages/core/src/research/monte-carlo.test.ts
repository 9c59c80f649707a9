import { describe, expect, it } from 'vitest';
import { createMonteCarlo, distribution, pathStats, percentile, runMonteCarlo, tradeReturns, type MonteCarloOptions } from './monte-carlo.js';

const options = (over: Partial<MonteCarloOptions> = {}): MonteCarloOptions => ({ method: 'shuffle', runs: 1_000, seed: 1, ruinThreshold: 0.5, ...over });

/** Three trades on a capital of 1,000, given out of exit order: +500 (+50%), then -300 (-20% of 1,500), then -180 (-15% of 1,200). */
const THREE_TRADES = [
  { pnl: -180, exitTime: '2025-01-03T00:00:00.000Z' },
  { pnl: 500, exitTime: '2025-01-01T00:00:00.000Z' },
  { pnl: -300, exitTime: '2025-01-02T00:00:00.000Z' },
];
const A = 0.5;
const B = -0.2;
const C = -0.15;

describe('tradeReturns', () => {
  it('divides each P&L by the equity before it, in exit order', () => {
    const returns = tradeReturns(THREE_TRADES, 1_000);
    expect(returns).toHaveLength(3);
    [A, B, C].forEach((r, i) => expect(returns[i]).toBeCloseTo(r, 12));
  });

  it('keeps the given order for equal exit times', () => {
    const t = '2025-01-01T00:00:00.000Z';
    expect(
      tradeReturns(
        [
          { pnl: 100, exitTime: t },
          { pnl: -110, exitTime: t },
        ],
        100,
      ),
    ).toEqual([1, -0.55]);
  });

  it('never goes below -1, and leaves out the trades after the equity is gone', () => {
    const trades = [
      { pnl: -150, exitTime: '2025-01-01T00:00:00.000Z' },
      { pnl: 40, exitTime: '2025-01-02T00:00:00.000Z' },
    ];
    expect(tradeReturns(trades, 100)).toEqual([-1]);
    expect(tradeReturns([], 100)).toEqual([]);
    expect(() => tradeReturns(trades, 0)).toThrow(RangeError);
  });
});

describe('percentile', () => {
  it('interpolates linearly between order statistics, as numpy.percentile does', () => {
    // numpy.percentile([1, 2, 3, 4], [0, 5, 25, 50, 75, 95, 100]) -> 1, 1.15, 1.75, 2.5, 3.25, 3.85, 4
    const sorted = [1, 2, 3, 4];
    expect([0, 5, 25, 50, 75, 95, 100].map((p) => percentile(sorted, p))).toEqual([1, 1.15, 1.75, 2.5, 3.25, 3.85, 4].map((v) => expect.closeTo(v, 12)));
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });

  it('sorts before it reads, and gives the mean', () => {
    expect(distribution(Float64Array.from([4, 1, 3, 2]))).toEqual({ p5: 1.15, p25: 1.75, p50: 2.5, p75: 3.25, p95: 3.85, mean: 2.5 });
  });
});

describe('pathStats', () => {
  it('measures drawdown from the running peak and the longest run of trades below a previous peak', () => {
    // 1 -> 2 -> 1 -> 0.5 -> 2 (back at the peak: not below it) -> 0.5
    const stats = pathStats([1, -0.5, -0.5, 3, -0.75], 0.6);
    expect(stats.finalReturn).toBe(-0.5);
    expect(stats.maxDrawdown).toBe(0.75);
    expect(stats.longestDrawdown).toBe(2);
    expect(stats.ruined).toBe(false);
  });

  it('counts ruin at or below 1 - threshold (exactly representable values)', () => {
    expect(pathStats([-0.5, -0.5], 0.75).ruined).toBe(true); // 0.25 <= 0.25
    expect(pathStats([-0.5, -0.5], 0.5).ruined).toBe(true);
    expect(pathStats([-0.5, 1, -0.5], 0.875).ruined).toBe(false); // lowest 0.5 > 0.125
    expect(pathStats([-1], 1).ruined).toBe(true); // all lost
    expect(pathStats([-0.5], 1).ruined).toBe(false);
  });

  it('an empty path, or one that only rises, has no drawdown', () => {
    expect(pathStats([], 0.5)).toEqual({ finalReturn: 0, maxDrawdown: 0, longestDrawdown: 0, ruined: false });
    expect(pathStats([0.25, 0.2], 0.5)).toEqual({ finalReturn: 0.5, maxDrawdown: 0, longestDrawdown: 0, ruined: false });
  });
});

describe('runMonteCarlo: the three trades, shuffled, against the six orders worked out by hand', () => {
  /*
   * Equity after each trade, max drawdown, longest drawdown (trades below an earlier peak), lowest equity:
   *   A B C: 1.5, 1.2, 1.02      dd 1 - 1.02/1.5 = 0.32   longest 2   lowest 1.02
   *   A C B: 1.5, 1.275, 1.02    dd 0.32                  longest 2   lowest 1.02
   *   B A C: 0.8, 1.2, 1.02      dd 0.2 (1 -> 0.8)        longest 1   lowest 0.8
   *   C A B: 0.85, 1.275, 1.02   dd 0.2 (1.275 -> 1.02)   longest 1   lowest 0.85
   *   B C A: 0.8, 0.68, 1.02     dd 0.32                  longest 2   lowest 0.68
   *   C B A: 0.85, 0.68, 1.02    dd 0.32                  longest 2   lowest 0.68
   * Final return 1.5 × 0.8 × 0.85 - 1 = 0.02 in every order.
   * Max drawdown: 0.2 (1/3), 0.32 (2/3): p5 = p25 = 0.2 (below the 1/3 step), p50..p95 = 0.32; mean 0.28.
   * Longest: 1 (1/3), 2 (2/3): p5 = p25 = 1, p50..p95 = 2; mean 5/3.
   * Ruin at 30% (equity <= 0.7): B C A and C B A, 1/3. At 18% (<= 0.82): B A C as well, 1/2. At 35%: none.
   */
  const returns = tradeReturns(THREE_TRADES, 1_000);
  const runs = 30_000;
  // a run's order is uniform over the six: each share within 6 standard errors of 1/3, 1/2
  const tolerance = 6 * Math.sqrt(((1 / 3) * (2 / 3)) / runs);

  it('every order checks out by hand', () => {
    const orders: Array<[number[], number, number, boolean]> = [
      [[A, B, C], 0.32, 2, false],
      [[A, C, B], 0.32, 2, false],
      [[B, A, C], 0.2, 1, false],
      [[C, A, B], 0.2, 1, false],
      [[B, C, A], 0.32, 2, true],
      [[C, B, A], 0.32, 2, true],
    ];
    for (const [path, drawdown, longest, ruined] of orders) {
      const stats = pathStats(path, 0.3);
      expect(stats.finalReturn).toBeCloseTo(0.02, 12);
      expect(stats.maxDrawdown).toBeCloseTo(drawdown, 12);
      expect(stats.longestDrawdown).toBe(longest);
      expect(stats.ruined).toBe(ruined);
    }
  });

  it('the simulated percentiles are those of the six orders', () => {
    const result = runMonteCarlo(returns, options({ runs, ruinThreshold: 0.3 }));
    for (const value of Object.values(result.finalReturn)) expect(value).toBeCloseTo(0.02, 12);
    const { mean: ddMean, ...dd } = result.maxDrawdown;
    expect(Object.values(dd)).toEqual([0.2, 0.2, 0.32, 0.32, 0.32].map((v) => expect.closeTo(v, 12)));
    // max drawdown is 0.2 or 0.32: 0.12 times a yes/no, so its error is 0.12 times that of a share
    expect(Math.abs(ddMean - 0.28)).toBeLessThan(0.12 * tolerance);
    const { mean: longestMean, ...longest } = result.longestDrawdown;
    expect(longest).toEqual({ p5: 1, p25: 1, p50: 2, p75: 2, p95: 2 });
    expect(Math.abs(longestMean - 5 / 3)).toBeLessThan(tolerance);
    expect(Math.abs(result.probabilityOfRuin - 1 / 3)).toBeLessThan(tolerance);
  });

  it('the probability of ruin follows the threshold', () => {
    expect(Math.abs(runMonteCarlo(returns, options({ runs, ruinThreshold: 0.18 })).probabilityOfRuin - 1 / 2)).toBeLessThan(tolerance);
    expect(runMonteCarlo(returns, options({ runs, ruinThreshold: 0.35 })).probabilityOfRuin).toBe(0);
  });
});

describe('runMonteCarlo: bootstrap', () => {
  /*
   * Two trades, +10% and -10%, drawn twice with replacement: four equally likely paths.
   *   ++: 1.21 (final +0.21, dd 0)    +-: 1.1, 0.99 (final -0.01, dd 0.1, longest 1)
   *   -+: 0.9, 0.99 (-0.01, dd 0.1, longest 2)    --: 0.9, 0.81 (-0.19, dd 0.19, longest 2)
   * Final return: -0.19 (1/4), -0.01 (1/2), 0.21 (1/4): p5 = -0.19, p50 = -0.01, p95 = 0.21 (away
   * from the steps at 1/4 and 3/4), mean 0. Max drawdown mean 0.0975; ruin at 15% (<= 0.85): --, 1/4.
   */
  const runs = 10_000;
  const result = runMonteCarlo([0.1, -0.1], options({ method: 'bootstrap', runs, ruinThreshold: 0.15 }));

  it('the simulated distribution is that of the four paths', () => {
    expect(result.finalReturn.p5).toBeCloseTo(-0.19, 12);
    expect(result.finalReturn.p50).toBeCloseTo(-0.01, 12);
    expect(result.finalReturn.p95).toBeCloseTo(0.21, 12);
    // standard deviation of a run's final return: about 0.142; 6 standard errors
    expect(Math.abs(result.finalReturn.mean)).toBeLessThan(6 * (0.142 / Math.sqrt(runs)));
    expect(Math.abs(result.maxDrawdown.mean - 0.0975)).toBeLessThan(6 * (0.068 / Math.sqrt(runs)));
    expect(result.maxDrawdown.p5).toBe(0);
    expect(result.maxDrawdown.p95).toBeCloseTo(0.19, 12);
    expect(result.longestDrawdown.p95).toBe(2);
    expect(Math.abs(result.probabilityOfRuin - 0.25)).toBeLessThan(6 * Math.sqrt(0.1875 / runs));
  });

  it('a longer series: the mean final return is the mean growth to the power of the trades, minus 1', () => {
    const returns = [0.05, -0.03, 0.02, -0.01, 0.04, -0.06, 0.01, 0.03];
    const growth = returns.reduce((sum, r) => sum + (1 + r), 0) / returns.length;
    const expected = growth ** returns.length - 1; // draws are independent: E[prod] = prod E
    const mean = runMonteCarlo(returns, options({ method: 'bootstrap', runs: 10_000, seed: 42 })).finalReturn.mean;
    // a run's final return varies by about 0.1 here; 0.004 is 4 standard errors
    expect(Math.abs(mean - expected)).toBeLessThan(0.004);
  });
});

describe('runMonteCarlo: determinism and edges', () => {
  const returns = tradeReturns(
    Array.from({ length: 50 }, (_, i) => ({ pnl: ((i * 37) % 11) - 5, exitTime: new Date(Date.UTC(2025, 0, 1, i)).toISOString() })),
    100,
  );

  it('the same seed answers the same; another seed other paths', () => {
    for (const method of ['shuffle', 'bootstrap'] as const) {
      const first = runMonteCarlo(returns, options({ method, seed: 7 }));
      expect(runMonteCarlo(returns, options({ method, seed: 7 }))).toEqual(first);
      expect(runMonteCarlo(returns, options({ method, seed: 8 }))).not.toEqual(first);
    }
    const bootstrap = runMonteCarlo(returns, options({ method: 'bootstrap', seed: 7 }));
    expect(runMonteCarlo(returns, options({ method: 'bootstrap', seed: 8 })).finalReturn).not.toEqual(bootstrap.finalReturn);
  });

  it('drawn a few runs at a time (as the server does), answers exactly what one go does', () => {
    for (const method of ['shuffle', 'bootstrap'] as const) {
      const whole = runMonteCarlo(returns, options({ method, seed: 3 }));
      const sliced = createMonteCarlo(returns, options({ method, seed: 3 }));
      expect(() => sliced.result()).toThrow(/still to be drawn/);
      let slices = 1;
      while (sliced.run(7)) slices++;
      expect(slices).toBeGreaterThan(10);
      expect(sliced.result()).toEqual(whole);
    }
  });

  it('shuffle keeps the final return; bootstrap varies it', () => {
    const shuffled = runMonteCarlo(returns, options({ method: 'shuffle' }));
    const final = returns.reduce((e, r) => e * (1 + r), 1) - 1;
    for (const value of Object.values(shuffled.finalReturn)) expect(value).toBeCloseTo(final, 10);
    const drawn = runMonteCarlo(returns, options({ method: 'bootstrap' }));
    expect(drawn.finalReturn.p95 - drawn.finalReturn.p5).toBeGreaterThan(0.05);
  });

  it('no trades: every value is 0; one trade: the same path every run', () => {
    const zero = { p5: 0, p25: 0, p50: 0, p75: 0, p95: 0, mean: 0 };
    for (const method of ['shuffle', 'bootstrap'] as const) {
      expect(runMonteCarlo([], options({ method }))).toEqual({ finalReturn: zero, maxDrawdown: zero, longestDrawdown: zero, probabilityOfRuin: 0 });
      const one = runMonteCarlo([-0.6], options({ method, runs: 3 }));
      expect(one.finalReturn.p50).toBeCloseTo(-0.6, 12);
      expect(one.maxDrawdown.mean).toBeCloseTo(0.6, 12);
      expect(one.longestDrawdown).toEqual({ p5: 1, p25: 1, p50: 1, p75: 1, p95: 1, mean: 1 });
      expect(one.probabilityOfRuin).toBe(1);
    }
  });

  it('refuses runs and thresholds out of range', () => {
    expect(() => runMonteCarlo(returns, options({ runs: 0 }))).toThrow(RangeError);
    expect(() => runMonteCarlo(returns, options({ runs: 1.5 }))).toThrow(RangeError);
    expect(() => runMonteCarlo(returns, options({ ruinThreshold: 0 }))).toThrow(RangeError);
    expect(() => runMonteCarlo(returns, options({ ruinThreshold: 1.01 }))).toThrow(RangeError);
  });
});
