import type { OptimizationResults } from '@stratbox/contract';
import { StratboxError } from '../errors/index.js';
import { probabilityOfBacktestOverfitting } from './backtest-overfitting.js';
import { deflatedSharpeOfReturns } from './deflated-sharpe.js';

/*
 * The overfitting statistics of an optimization, from its trials' per-period returns: the
 * Deflated Sharpe Ratio of the best trial and the Probability of Backtest Overfitting of the
 * search. A pure function over plain data; the statistics themselves are deflated-sharpe.ts and
 * backtest-overfitting.ts (docs/overfitting-statistics.md).
 *
 * Guarantees:
 * - The trials are one search over the same periods: every trial's returns (when it has some) are
 *   the same T periods, so all the same length. Trials without returns (failed ones) are left
 *   out; infeasible trials with returns are in: they were tried, and leaving them out would
 *   understate both the number of trials and PBO.
 * - A statistic that cannot be computed is null, never NaN, never an error: fewer than 2 trials
 *   with returns, too few periods (see below), no best trial. Errors are for inputs that break
 *   the contract (VALIDATION_FAILED): returns of different lengths, a non-finite return, an index
 *   twice, a best index that is not a feasible trial with returns.
 * - DSR: the best trial's per-period returns (T >= 3, and they must vary), with N the trials whose
 *   per-period Sharpe ratio is defined and V the sample variance of those Sharpe ratios (the
 *   best's included; N >= 2). A trial whose returns do not vary (one that never trades: all 0)
 *   has no Sharpe ratio: it is left out of N and V, as it could never have been the best by luck.
 *   Null when the best trial's own Sharpe ratio is undefined or fewer than 2 are defined.
 * - PBO: CSCV over the T x N matrix of the trials with returns (columns in ascending index, so an
 *   in-sample tie selects the lowest index), the default Sharpe metric (a trial that does not
 *   vary scores +-Infinity or 0, which ranks without NaN), S = `cscvPartitions(T)` blocks. Null
 *   when T < 2.
 */

/** The optimization's overfitting results: `{ deflatedSharpe, pbo }` in the contract's `DeflatedSharpe` and `BacktestOverfitting` shapes, each nullable. */
export type OverfittingStatistics = OptimizationResults['overfitting'];
type DeflatedSharpeResult = NonNullable<OverfittingStatistics['deflatedSharpe']>;
type OverfittingResult = NonNullable<OverfittingStatistics['pbo']>;

/** What the statistics need of a trial: its index, its per-period returns (null: none, e.g. failed) and whether it could be the best. */
export interface TrialReturns {
  index: number;
  returns: Float64Array | null;
  feasible: boolean;
}

/** The most CSCV blocks an optimization's PBO uses: 16, as in the paper (C(16, 8) = 12,870 splits). */
export const MAX_CSCV_PARTITIONS = 16;
/** The fewest periods the DSR of the best trial needs. */
export const MIN_DSR_PERIODS = 3;

/**
 * The number of CSCV blocks S for T periods: the largest even number <= min(16, T), so every
 * block holds at least one period; null when T < 2 (no even S >= 2 fits).
 */
export function cscvPartitions(periods: number): number | null {
  const s = Math.min(MAX_CSCV_PARTITIONS, Math.floor(periods));
  const even = s - (s % 2);
  return even >= 2 ? even : null;
}

/**
 * The Deflated Sharpe Ratio of the best trial (`bestIndex`, null when no trial was feasible) and
 * the PBO of the search, in the shapes of the optimization's results; each null when it cannot be
 * computed (see the guarantees above). Cost: O(N T) plus PBO's C(S, S/2) x N x S.
 */
export function overfittingStatistics(trials: readonly TrialReturns[], bestIndex: number | null): OverfittingStatistics {
  const withReturns = checkedTrials(trials, bestIndex);
  const periods = withReturns[0]?.returns.length ?? 0;
  if (withReturns.length < 2) return { deflatedSharpe: null, pbo: null };
  return { deflatedSharpe: deflatedSharpeOfBest(withReturns, bestIndex, periods), pbo: backtestOverfitting(withReturns, periods) };
}

type WithReturns = { index: number; returns: Float64Array; feasible: boolean };

/** The trials with returns, by ascending index, after the contract's checks. */
function checkedTrials(trials: readonly TrialReturns[], bestIndex: number | null): WithReturns[] {
  const seen = new Set<number>();
  for (const trial of trials) {
    if (seen.has(trial.index)) throw invalid(`Trial ${trial.index} is given twice`);
    seen.add(trial.index);
  }
  const withReturns = trials.filter((t): t is WithReturns => t.returns !== null).sort((a, b) => a.index - b.index);
  const periods = withReturns[0]?.returns.length;
  for (const { index, returns } of withReturns) {
    if (returns.length !== periods)
      throw invalid(`Trial ${index} has ${returns.length} returns, others ${periods}: the trials of one search share their periods`);
    if (!returns.every(Number.isFinite)) throw invalid(`Trial ${index} has a return that is not a finite number`);
  }
  if (bestIndex !== null && !withReturns.some((t) => t.index === bestIndex && t.feasible)) {
    throw invalid(`The best trial ${bestIndex} is not a feasible trial with returns`);
  }
  return withReturns;
}

function deflatedSharpeOfBest(trials: readonly WithReturns[], bestIndex: number | null, periods: number): DeflatedSharpeResult | null {
  const best = trials.find((t) => t.index === bestIndex);
  if (!best || periods < MIN_DSR_PERIODS || periodSharpe(best.returns) === null) return null;
  const sharpes = trials.map((t) => periodSharpe(t.returns)).filter((s): s is number => s !== null);
  if (sharpes.length < 2) return null;
  const report = deflatedSharpeOfReturns(Array.from(best.returns), sharpes);
  const answer: DeflatedSharpeResult = {
    value: report.deflatedSharpe,
    sharpe: report.sharpe,
    expectedMaxSharpe: report.expectedMaxSharpe,
    trials: report.trials,
    periods: report.observations,
    skewness: report.skewness,
    kurtosis: report.kurtosis,
  };
  return Object.values(answer).every(Number.isFinite) ? answer : null;
}

function backtestOverfitting(trials: readonly WithReturns[], periods: number): OverfittingResult | null {
  const partitions = cscvPartitions(periods);
  if (partitions === null) return null;
  const matrix = Array.from({ length: periods }, (_, t) => trials.map((trial) => trial.returns[t]!));
  const result = probabilityOfBacktestOverfitting(matrix, { partitions });
  return { pbo: result.pbo, partitions, combinations: result.combinations.length, trials: result.trials, periods };
}

/**
 * The per-period Sharpe ratio mean / standard deviation by plug-in (divisor T) moments, as
 * `returnMoments` computes it; null when the returns do not vary beyond the rounding of their
 * mean (`returnMoments`' own test), so the two agree on which trials have one.
 */
function periodSharpe(returns: Float64Array): number | null {
  const n = returns.length;
  if (n < 2) return null;
  let sum = 0;
  for (const r of returns) sum += r;
  const mean = sum / n;
  let m2 = 0;
  for (const r of returns) m2 += (r - mean) * (r - mean);
  m2 /= n;
  if (!(m2 > (Number.EPSILON * Math.abs(mean)) ** 2)) return null;
  return mean / Math.sqrt(m2);
}

function invalid(message: string): StratboxError {
  return new StratboxError('VALIDATION_FAILED', message);
}
