import { describe, expect, it } from 'vitest';
import { curveMetrics } from '../backtests/engine/metrics.js';
import { type TrialMetrics, bestTrial, compareTrials, isFeasible, objectiveOf } from './trial-score.js';

const DAY = 86_400_000;

function metrics(values: Partial<TrialMetrics> = {}): TrialMetrics {
  return {
    totalReturn: 0.1,
    cagr: 0.1,
    maxDrawdown: 0.2,
    maxDrawdownDuration: 0,
    sharpe: 1.5,
    sortino: 2,
    calmar: 0.5,
    winRate: 0.5,
    profitFactor: 1.2,
    expectancy: 3,
    tradeCount: 10,
    exposure: 0.5,
    feesPaid: 1,
    fundingPaid: 0,
    buyAndHoldReturn: 0.05,
    ...values,
  };
}

function trial(index: number, objective: number | null, feasible = true) {
  return { index, objective, feasible };
}

describe('objectiveOf', () => {
  it('answers the objective metric', () => {
    expect(objectiveOf(metrics({ sharpe: 1.25 }), 'sharpe')).toBe(1.25);
    expect(objectiveOf(metrics({ profitFactor: -0 }), 'profitFactor')).toBe(-0);
    expect(objectiveOf(metrics({ winRate: 0.6 }), 'winRate')).toBe(0.6);
  });

  it('answers null for metrics that are null, or a metric that is null, NaN or infinite', () => {
    expect(objectiveOf(null, 'sharpe')).toBeNull();
    expect(objectiveOf(metrics({ sharpe: null }), 'sharpe')).toBeNull();
    expect(objectiveOf(metrics({ calmar: Number.NaN }), 'calmar')).toBeNull();
    expect(objectiveOf(metrics({ profitFactor: Number.POSITIVE_INFINITY }), 'profitFactor')).toBeNull();
    expect(objectiveOf(metrics({ cagr: Number.NEGATIVE_INFINITY }), 'cagr')).toBeNull();
    const { expectancy: _, ...missing } = metrics();
    expect(objectiveOf(missing as TrialMetrics, 'expectancy')).toBeNull();
  });
});

describe('isFeasible', () => {
  const completed = (values: Partial<TrialMetrics> = {}) => ({ status: 'completed' as const, objective: 1, metrics: metrics(values) });

  it('needs a completed trial with a finite objective', () => {
    expect(isFeasible(completed(), {})).toBe(true);
    expect(isFeasible({ ...completed(), status: 'failed' }, {})).toBe(false);
    expect(isFeasible({ ...completed(), objective: null }, {})).toBe(false);
    expect(isFeasible({ ...completed(), objective: Number.NaN }, {})).toBe(false);
  });

  it('needs at least minTrades trades', () => {
    expect(isFeasible(completed({ tradeCount: 5 }), { minTrades: 5 })).toBe(true);
    expect(isFeasible(completed({ tradeCount: 4 }), { minTrades: 5 })).toBe(false);
    expect(isFeasible(completed({ tradeCount: 0 }), { minTrades: 0 })).toBe(true);
    expect(isFeasible({ ...completed(), metrics: null }, { minTrades: 0 })).toBe(false);
  });

  it('allows a max drawdown up to the limit, both positive fractions as the engine computes them', () => {
    // Equity 100 -> 80 -> 120 -> 90: the largest fall is 120 to 90, 25 %.
    const curve = curveMetrics({ times: [0, DAY, 2 * DAY, 3 * DAY], values: [100, 80, 120, 90], initial: 100 });
    expect(curve.maxDrawdown).toBeCloseTo(0.25, 12);
    expect(isFeasible(completed({ maxDrawdown: curve.maxDrawdown }), { maxDrawdown: 0.3 })).toBe(true);
    expect(isFeasible(completed({ maxDrawdown: curve.maxDrawdown }), { maxDrawdown: 0.2 })).toBe(false);
    expect(isFeasible(completed({ maxDrawdown: 0.2 }), { maxDrawdown: 0.2 })).toBe(true);
    expect(isFeasible(completed({ maxDrawdown: 0 }), { maxDrawdown: 0.01 })).toBe(true);
  });

  it('does not meet a drawdown constraint it cannot check', () => {
    expect(isFeasible(completed({ maxDrawdown: null }), { maxDrawdown: 0.5 })).toBe(false);
    expect(isFeasible(completed({ maxDrawdown: null }), {})).toBe(true);
  });

  it('needs every constraint given', () => {
    const constraints = { minTrades: 10, maxDrawdown: 0.3 };
    expect(isFeasible(completed({ tradeCount: 10, maxDrawdown: 0.3 }), constraints)).toBe(true);
    expect(isFeasible(completed({ tradeCount: 9, maxDrawdown: 0.1 }), constraints)).toBe(false);
    expect(isFeasible(completed({ tradeCount: 50, maxDrawdown: 0.31 }), constraints)).toBe(false);
  });
});

describe('compareTrials and bestTrial', () => {
  it('orders feasible first, then objective descending with null last, then index ascending', () => {
    const trials = [trial(0, 3, false), trial(1, null), trial(2, 1), trial(3, 2), trial(4, null, false), trial(5, 2), trial(6, -1), trial(7, 9, false)];
    const order = [...trials].sort(compareTrials).map((t) => t.index);
    expect(order).toEqual([3, 5, 2, 6, 1, 7, 0, 4]);
    expect(
      [...trials]
        .reverse()
        .sort(compareTrials)
        .map((t) => t.index),
    ).toEqual(order);
  });

  it('puts a non-finite objective with the nulls', () => {
    expect(compareTrials(trial(0, Number.NaN), trial(1, -5))).toBeGreaterThan(0);
    expect(compareTrials(trial(5, Number.POSITIVE_INFINITY), trial(1, null))).toBeGreaterThan(0);
    expect(compareTrials(trial(1, null), trial(5, Number.NaN))).toBeLessThan(0);
  });

  it('finds the feasible trial with the largest objective, the lowest index on a tie', () => {
    expect(bestTrial([trial(0, 1), trial(1, 4), trial(2, 3)])?.index).toBe(1);
    expect(bestTrial([trial(4, 2), trial(2, 2), trial(3, 1)])?.index).toBe(2);
    expect(bestTrial([trial(0, 10, false), trial(1, -3)])?.index).toBe(1);
  });

  it('agrees with the first of the sorted trials', () => {
    const trials = Array.from({ length: 50 }, (_, i) => trial(i, i % 7 === 0 ? null : (i * 37) % 11, i % 5 !== 0));
    const sorted = [...trials].sort(compareTrials);
    expect(bestTrial(trials)).toBe(sorted[0]);
    expect(bestTrial(trials)).toMatchObject({ objective: 10, feasible: true });
  });

  it('answers null when no trial is feasible with a finite objective', () => {
    expect(bestTrial([])).toBeNull();
    expect(bestTrial([trial(0, 5, false), trial(1, null, false)])).toBeNull();
    expect(bestTrial([trial(0, null, true)])).toBeNull();
  });
});
