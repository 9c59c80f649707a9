import { OptimizationResults } from '@stratbox/contract';
import { describe, expect, it } from 'vitest';
import { EULER_MASCHERONI } from './deflated-sharpe.js';
import { normalCdf, normalQuantile } from './normal-distribution.js';
import { MAX_CSCV_TRIAL_SPLITS, type TrialReturns, cscvPartitions, overfittingStatistics, overfittingStatisticsAsync } from './optimization-statistics.js';
import { eventLoopTicks, normals, validationError } from './test-fixtures.js';

function trial(index: number, returns: number[] | null, feasible = true): TrialReturns {
  return { index, returns: returns && Float64Array.from(returns), feasible };
}

/** `count` trials of normal returns with standard deviation `sd`, the first with mean `edge`, the others 0, indices from 0. */
function search(seed: number, count: number, periods: number, edge: number, sd = 0.01): TrialReturns[] {
  const draw = normals(seed);
  return Array.from({ length: count }, (_, n) =>
    trial(
      n,
      Array.from({ length: periods }, () => (n === 0 ? edge : 0) + sd * draw()),
    ),
  );
}

describe('cscvPartitions', () => {
  it('is the largest even number <= min(16, periods) for a modest search, null below 2 periods', () => {
    expect([0, 1, 2, 3, 4, 7, 15, 16, 17, 500].map((periods) => cscvPartitions(periods, 1000))).toEqual([null, null, 2, 2, 4, 6, 14, 16, 16, 16]);
  });

  it('takes fewer blocks as the trials grow, keeping C(S, S/2) x N within the budget, down to 8', () => {
    const at = (trials: number) => cscvPartitions(512, trials);
    // C(16, 8) = 12,870, C(14, 7) = 3,432, C(12, 6) = 924, C(10, 5) = 252, C(8, 4) = 70; budget 30,000,000.
    expect(MAX_CSCV_TRIAL_SPLITS).toBe(30_000_000);
    expect([2331, 2332, 8741, 8742, 32_467, 32_468, 100_000, 119_047, 119_048, 428_571].map(at)).toEqual([16, 14, 14, 12, 12, 10, 10, 10, 8, 8]);
    expect(at(428_572)).toBeNull();
    // Few periods: the largest even S <= T is the floor, if it fits the budget (C(6, 3) = 20).
    expect(cscvPartitions(7, 1_500_000)).toBe(6);
    expect(cscvPartitions(7, 1_500_001)).toBeNull();
  });
});

describe('overfittingStatistics', () => {
  // Four trials over T = 4 periods (index: returns):
  //   0: 1, -1, 1, -1   mean 0, sd 1: SR 0
  //   1: 2,  0, 2,  0   mean 1, sd 1: SR 1
  //   2: 0,  0, 0,  0   never trades: no Sharpe ratio
  //   3: 3,  1, 3,  1   mean 2, sd 1: SR 2, skewness 0, kurtosis 1 (two equally likely values)
  const small = [trial(0, [1, -1, 1, -1]), trial(2, [0, 0, 0, 0], false), trial(1, [2, 0, 2, 0]), trial(3, [3, 1, 3, 1])];

  it('deflates the best trial’s Sharpe ratio by the defined ones, as by hand', () => {
    const { deflatedSharpe } = overfittingStatistics(small, 3);
    // N = 3 defined Sharpe ratios {0, 1, 2}, sample variance V = (1 + 0 + 1) / 2 = 1.
    const g = EULER_MASCHERONI;
    const expectedMax = (1 - g) * normalQuantile(1 - 1 / 3) + g * normalQuantile(1 - 1 / (3 * Math.E));
    // PSR variance term 1 - 0 * 2 + (1 - 1) / 4 * 4 = 1; sqrt(T - 1) = sqrt(3).
    expect(deflatedSharpe).not.toBeNull();
    expect(deflatedSharpe!.expectedMaxSharpe).toBeCloseTo(expectedMax, 12);
    expect(deflatedSharpe!.value).toBeCloseTo(normalCdf((2 - expectedMax) * Math.sqrt(3)), 12);
    expect(deflatedSharpe).toMatchObject({ sharpe: 2, trials: 3, periods: 4, skewness: 0, kurtosis: 1 });
    const statistics = overfittingStatistics(small, 3);
    expect(OptimizationResults.shape.overfitting.parse(statistics)).toEqual(statistics);
  });

  // CSCV with S = 4 blocks of one period; with two periods a, b the Sharpe ratio is (a + b) / |a - b|,
  // and a trial whose two returns are equal scores +Infinity, -Infinity or 0 by their sign.
  // In-sample {0,1}: 0, 1, 0, 2 -> trial 3; out-of-sample {2,3} the same: rank 4 of 4, lambda > 0.
  // In-sample {0,2}: +Inf, +Inf, 0, +Inf -> trial 0 (first of the tie); out-of-sample {1,3}: -Inf, 0, 0, +Inf:
  //   rank 1, lambda < 0: overfit.
  // In-sample {0,3}: 0, 1, 0, 2 -> trial 3; out-of-sample {1,2}: 0, 1, 0, 2: rank 4. {1,2} mirrors it.
  // In-sample {1,3}: -Inf, 0, 0, +Inf -> trial 3; out-of-sample {0,2}: +Inf, +Inf, 0, +Inf: tied ranks 2, 3, 4 -> 3, lambda > 0.
  // In-sample {2,3}: as {0,1}. PBO = 1/6.
  it('runs CSCV over every trial with returns, a constant one included, as by hand', () => {
    const { pbo } = overfittingStatistics(small, 3);
    expect(pbo).toEqual({ pbo: 1 / 6, partitions: 4, combinations: 6, trials: 4, periods: 4 });
  });

  it('leaves out trials without returns and answers the same whatever their order', () => {
    const withFailed = [...small, trial(9, null, false), trial(4, null, false)];
    expect(overfittingStatistics(withFailed, 3)).toEqual(overfittingStatistics(small, 3));
    expect(overfittingStatistics([...small].reverse(), 3)).toEqual(overfittingStatistics(small, 3));
  });

  it('answers null for a statistic that cannot be computed, never NaN', () => {
    // Fewer than 2 trials with returns.
    expect(overfittingStatistics([trial(0, [1, 2, 3]), trial(1, null, false)], 0)).toEqual({ deflatedSharpe: null, pbo: null });
    expect(overfittingStatistics([], null)).toEqual({ deflatedSharpe: null, pbo: null });
    // No best trial: PBO still.
    expect(overfittingStatistics(small, null)).toMatchObject({ deflatedSharpe: null, pbo: { pbo: 1 / 6 } });
    // Two periods: too few for the DSR, enough for PBO with S = 2.
    const two = overfittingStatistics([trial(0, [1, 2]), trial(1, [2, 1])], 0);
    expect(two.deflatedSharpe).toBeNull();
    expect(two.pbo).toMatchObject({ partitions: 2, combinations: 2, periods: 2, trials: 2 });
    // One period: neither.
    expect(overfittingStatistics([trial(0, [1]), trial(1, [2])], 0)).toEqual({ deflatedSharpe: null, pbo: null });
    // The best trial's returns do not vary: no Sharpe ratio to deflate.
    const constantBest = overfittingStatistics([trial(0, [0.01, 0.01, 0.01]), trial(1, [1, -1, 2])], 0);
    expect(constantBest.deflatedSharpe).toBeNull();
    expect(constantBest.pbo).not.toBeNull();
    // Only the best has a Sharpe ratio: fewer than 2 defined.
    expect(overfittingStatistics([trial(0, [1, -1, 2]), trial(1, [0, 0, 0]), trial(2, [0, 0, 0])], 0).deflatedSharpe).toBeNull();
    for (const statistic of [two.pbo, constantBest.pbo]) expect(Object.values(statistic!).every(Number.isFinite)).toBe(true);
  });

  it('refuses trials of different lengths, non-finite returns, an index twice, or a best that is not a feasible trial with returns', () => {
    expect(() => overfittingStatistics([trial(0, [1, 2, 3]), trial(1, [1, 2])], 0)).toThrow(validationError(/share their periods/));
    expect(() => overfittingStatistics([trial(0, [1, 2, 3]), trial(1, [1, Number.NaN, 3])], 0)).toThrow(validationError(/finite/));
    expect(() => overfittingStatistics([trial(0, [1, 2, 3]), trial(0, [1, 2, 4])], 0)).toThrow(validationError(/twice/));
    expect(() => overfittingStatistics(small, 2)).toThrow(validationError(/not a feasible trial/));
    expect(() => overfittingStatistics(small, 7)).toThrow(validationError(/not a feasible trial/));
    expect(() => overfittingStatistics([...small, trial(5, null, true)], 5)).toThrow(validationError(/not a feasible trial/));
  });

  it('gives a real edge a high DSR, lowered when it was the best of many more trials', () => {
    // Trial 0 earns 0.25 sd a period over 250 periods (it shows 0.27); the others are noise of the same volatility.
    const few = overfittingStatistics(search(3, 10, 250, 0.0025), 0).deflatedSharpe!;
    const many = overfittingStatistics(search(3, 1000, 250, 0.0025), 0).deflatedSharpe!;
    expect(few.trials).toBe(10);
    expect(many.trials).toBe(1000);
    expect(few.sharpe).toBe(many.sharpe);
    expect(many.expectedMaxSharpe).toBeGreaterThan(few.expectedMaxSharpe);
    expect(few.value).toBeGreaterThan(0.95);
    expect(many.value).toBeLessThan(0.9);
  });

  it('gives the luckiest of many noise trials a DSR far from significant', () => {
    const trials = search(2, 200, 250, 0);
    const sharpe = (r: Float64Array) => {
      const mean = r.reduce((a, b) => a + b, 0) / r.length;
      return mean / Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / r.length);
    };
    const luckiest = trials.reduce((best, t) => (sharpe(t.returns!) > sharpe(best.returns!) ? t : best));
    const { deflatedSharpe } = overfittingStatistics(trials, luckiest.index);
    expect(deflatedSharpe!.sharpe).toBeGreaterThan(0.1);
    expect(deflatedSharpe!.value).toBeLessThan(0.9);
  });

  it('finds PBO near 0 when one trial dominates every period, and high for pure noise', () => {
    const dominated = search(3, 50, 320, 0.01);
    expect(overfittingStatistics(dominated, 0).pbo!.pbo).toBeLessThan(0.05);
    const noise = search(4, 200, 320, 0);
    const { pbo } = overfittingStatistics(noise, 0);
    expect(pbo).toMatchObject({ partitions: 16, combinations: 12_870, trials: 200, periods: 320 });
    expect(pbo!.pbo).toBeGreaterThan(0.3);
  });

  // How long these take is measured by bench/optimization-statistics.bench.ts, not asserted here.
  it('handles 1,000 trials of 500 periods (12,870 splits)', () => {
    const trials = search(5, 1000, 500, 0.002);
    const { deflatedSharpe, pbo } = overfittingStatistics(trials, 0);
    expect(pbo).toMatchObject({ partitions: 16, combinations: 12_870, trials: 1000, periods: 500 });
    expect(deflatedSharpe).toMatchObject({ trials: 1000, periods: 500 });
  }, 60_000);

  it('answers exactly what the sync function answers when run in time slices', async () => {
    const small = [trial(0, [1, -1, 1, -1]), trial(2, [0, 0, 0, 0], false), trial(1, [2, 0, 2, 0]), trial(3, [3, 1, 3, 1])];
    const cases: [TrialReturns[], number | null][] = [
      [small, 3],
      [small, null],
      [search(6, 300, 320, 0.002).reverse(), 0],
      [search(7, 40, 37, 0), 5],
      [[trial(0, [1, 2]), trial(1, [2, 1])], 0],
      [[trial(0, [1, 2, 3])], 0],
    ];
    for (const [trials, best] of cases) {
      const sync = overfittingStatistics(trials, best);
      expect(await overfittingStatisticsAsync(trials, best)).toEqual(sync);
      expect(await overfittingStatisticsAsync(trials, best, { sliceMs: 0 })).toEqual(sync);
    }
    await expect(overfittingStatisticsAsync(small, 2)).rejects.toThrow(validationError(/not a feasible trial/));
  });

  it('lets other callbacks run while it works on 1,000 trials of 500 periods', async () => {
    const trials = search(5, 1000, 500, 0.002);
    const ticks = eventLoopTicks();
    const { pbo } = await overfittingStatisticsAsync(trials, 0);
    expect(pbo).toMatchObject({ partitions: 16, combinations: 12_870 });
    expect(ticks.stop()).toBeGreaterThan(10);
  }, 60_000);

  it('keeps a 100,000-trial search within its split budget: S = 10 (252 splits)', async () => {
    const trials = search(8, 100_000, 64, 0);
    const { deflatedSharpe, pbo } = await overfittingStatisticsAsync(trials, 0);
    expect(pbo).toMatchObject({ partitions: 10, combinations: 252, trials: 100_000, periods: 64 });
    expect(pbo!.pbo).toBeGreaterThan(0.2);
    expect(deflatedSharpe).toMatchObject({ trials: 100_000, periods: 64 });
  }, 120_000);
});
