import { describe, expect, it } from 'vitest';
import { deflatedSharpeOfReturns, deflatedSharpeRatio, expectedMaxSharpe, probabilisticSharpeRatio, returnMoments } from './deflated-sharpe.js';
import { normalCdf } from './normal-distribution.js';
import { normals, validationError } from './test-fixtures.js';

function series(draw: () => number, length: number, mean: number): number[] {
  return Array.from({ length }, () => mean + draw());
}

describe('deflatedSharpeRatio', () => {
  // Bailey and López de Prado, "The Deflated Sharpe Ratio: Correcting for Selection Bias,
  // Backtest Overfitting and Non-Normality", Journal of Portfolio Management 40(5), 2014, its
  // numerical example: a strategy selected from N = 100 independent trials shows an annualized
  // Sharpe ratio of 2.5 over 5 years of daily returns (T = 1250, i.e. 250 days a year), with
  // skewness -3 and kurtosis 10; the trials' annualized Sharpe ratios have variance 1/2. The
  // paper finds DSR = 0.9004: not significant at 95 %. (With 252 days a year the DSR would be
  // 0.8997: the example's 250 is what gives 0.9004.) E[max SR] is 0.1132 per day (1.789 a year).
  it("reproduces the paper's numerical example (DSR = 0.9004)", () => {
    const days = 250;
    const example = { sharpe: 2.5 / Math.sqrt(days), observations: 1250, skewness: -3, kurtosis: 10, trials: 100, trialsVariance: 0.5 / days };
    expect(expectedMaxSharpe({ trials: 100, variance: 0.5 / days })).toBeCloseTo(0.1132, 4);
    expect(deflatedSharpeRatio(example)).toBeCloseTo(0.9004, 4);
    // Without the search (the same Sharpe ratio tested against 0) it looked certain.
    expect(probabilisticSharpeRatio({ ...example, benchmark: 0 })).toBeGreaterThan(0.9999);
  });

  it('falls as the search grows, and rises with the track record', () => {
    const base = { sharpe: 0.1, observations: 1000, skewness: 0, kurtosis: 3, trialsVariance: 0.001 };
    const bySearch = [2, 10, 100, 1000, 10000].map((trials) => deflatedSharpeRatio({ ...base, trials }));
    for (let i = 1; i < bySearch.length; i++) expect(bySearch[i]).toBeLessThan(bySearch[i - 1]!);
    const byLength = [250, 1000, 4000].map((observations) => deflatedSharpeRatio({ ...base, trials: 100, observations }));
    for (let i = 1; i < byLength.length; i++) expect(byLength[i]).toBeGreaterThan(byLength[i - 1]!);
  });
});

describe('probabilisticSharpeRatio', () => {
  it('is Phi((SR - SR*) sqrt(T - 1) / sqrt(1 + SR^2 / 2)) for normal returns', () => {
    // SR = 0.1, SR* = 0, T = 101: z = 0.1 * 10 / sqrt(1.005).
    const psr = probabilisticSharpeRatio({ sharpe: 0.1, benchmark: 0, observations: 101, skewness: 0, kurtosis: 3 });
    expect(psr).toBeCloseTo(normalCdf(1 / Math.sqrt(1.005)), 14);
    expect(psr).toBeCloseTo(0.8407, 4);
  });

  it('is one half at SR* = SR, and lower for negatively skewed, fat-tailed returns', () => {
    const normal = { sharpe: 0.1, benchmark: 0.05, observations: 500, skewness: 0, kurtosis: 3 };
    expect(probabilisticSharpeRatio({ ...normal, benchmark: 0.1 })).toBe(0.5);
    const crashy = probabilisticSharpeRatio({ ...normal, skewness: -2, kurtosis: 12 });
    expect(crashy).toBeLessThan(probabilisticSharpeRatio(normal));
  });

  it('refuses impossible moments: kurtosis below skewness^2 + 1 (excess kurtosis given as kurtosis)', () => {
    expect(() => probabilisticSharpeRatio({ sharpe: 0.1, benchmark: 0, observations: 500, skewness: -1, kurtosis: 0 })).toThrow(
      validationError(/skewness\^2 \+ 1/),
    );
    expect(() => probabilisticSharpeRatio({ sharpe: 0.1, benchmark: 0, observations: 1, skewness: 0, kurtosis: 3 })).toThrow(validationError(/observations/));
  });
});

describe('expectedMaxSharpe', () => {
  it('approximates the mean largest of N normal Sharpe ratios, better as N grows', () => {
    // Exact E[max] of N standard normals, the integral of x N phi(x) Phi(x)^(N-1) (mpmath quad),
    // and the approximation's relative error allowed at each N.
    const exact: [number, number, number][] = [
      [10, 1.538752730835173, 0.025],
      [100, 2.507593636441684, 0.01],
      [1000, 3.241435769133441, 0.005],
    ];
    const draw = normals(16);
    const variance = 0.002;
    for (const [trials, mean, tolerance] of exact) {
      const expected = expectedMaxSharpe({ trials, variance }) / Math.sqrt(variance);
      expect(Math.abs(expected / mean - 1), `N = ${trials}`).toBeLessThan(tolerance);
      // And a seeded simulation of the search agrees with the exact mean (standard error under 1 %).
      const runs = 2000;
      let total = 0;
      for (let run = 0; run < runs; run++) {
        let best = Number.NEGATIVE_INFINITY;
        for (let n = 0; n < trials; n++) best = Math.max(best, Math.sqrt(variance) * draw());
        total += best;
      }
      expect(Math.abs(total / runs / Math.sqrt(variance) / mean - 1), `simulated N = ${trials}`).toBeLessThan(0.025);
    }
  });

  it('scales with the standard deviation of the trials and refuses fewer than 2 trials', () => {
    expect(expectedMaxSharpe({ trials: 50, variance: 4 })).toBeCloseTo(2 * expectedMaxSharpe({ trials: 50, variance: 1 }), 14);
    expect(expectedMaxSharpe({ trials: 50, variance: 0 })).toBe(0);
    expect(() => expectedMaxSharpe({ trials: 1, variance: 1 })).toThrow(validationError(/trials/));
    expect(() => expectedMaxSharpe({ trials: 10, variance: -1 })).toThrow(validationError(/variance/));
  });
});

describe('returnMoments', () => {
  it('answers plug-in (divisor T) moments, computed by hand', () => {
    // [1, 2, 3, 4, 10]: mean 4, deviations -3 -2 -1 0 6; m2 = 50/5 = 10, m3 = 180/5 = 36, m4 = 1394/5 = 278.8.
    const moments = returnMoments([1, 2, 3, 4, 10]);
    expect(moments.sharpe).toBeCloseTo(4 / Math.sqrt(10), 14);
    expect(moments.skewness).toBeCloseTo(36 / 10 ** 1.5, 14);
    expect(moments.kurtosis).toBeCloseTo(2.788, 14);
    expect(moments.observations).toBe(5);
  });

  it('refuses series without a Sharpe ratio', () => {
    expect(() => returnMoments([0.01])).toThrow(validationError(/At least 2/));
    expect(() => returnMoments([0.01, 0.01, 0.01])).toThrow(validationError(/do not vary/));
    expect(() => returnMoments([0.01, Number.NaN])).toThrow(validationError(/finite/));
  });
});

describe('deflatedSharpeOfReturns', () => {
  const T = 1250;

  it('deflates the best of 100 noise strategies to a coin flip, where the plain PSR calls it a sure thing', () => {
    const draw = normals(7);
    const strategies = Array.from({ length: 100 }, () => series(draw, T, 0));
    const sharpes = strategies.map((s) => returnMoments(s).sharpe);
    const best = sharpes.indexOf(Math.max(...sharpes));
    const report = deflatedSharpeOfReturns(strategies[best]!, sharpes);
    expect(probabilisticSharpeRatio({ ...report, benchmark: 0 })).toBeGreaterThan(0.95);
    expect(report.deflatedSharpe).toBeGreaterThan(0.05);
    expect(report.deflatedSharpe).toBeLessThan(0.8);
    expect(report.trials).toBe(100);
    const mean = sharpes.reduce((a, b) => a + b, 0) / 100;
    expect(report.trialsVariance).toBeCloseTo(sharpes.reduce((a, b) => a + (b - mean) ** 2, 0) / 99, 15);
    expect(report.deflatedSharpe).toBe(deflatedSharpeRatio(report));
  });

  it('keeps a real edge significant after the search', () => {
    const draw = normals(8);
    const strategies = Array.from({ length: 100 }, (_, i) => series(draw, T, i === 42 ? 0.15 : 0));
    const sharpes = strategies.map((s) => returnMoments(s).sharpe);
    const report = deflatedSharpeOfReturns(strategies[42]!, sharpes);
    expect(report.deflatedSharpe).toBeGreaterThan(0.99);
  });

  it('takes the trials as a count and a variance', () => {
    const returns = series(normals(9), T, 0.05);
    const report = deflatedSharpeOfReturns(returns, { count: 100, variance: 1 / T });
    expect(report.expectedMaxSharpe).toBe(expectedMaxSharpe({ trials: 100, variance: 1 / T }));
    expect(report.deflatedSharpe).toBe(deflatedSharpeRatio({ ...returnMoments(returns), trials: 100, trialsVariance: 1 / T }));
    expect(() => deflatedSharpeOfReturns(returns, [0.1])).toThrow(validationError(/At least 2 trials/));
  });
});
