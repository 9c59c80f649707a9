import type { OptimizationResults } from '@stratbox/contract';
import { StratboxError } from '../errors/index.js';
import { cscvSteps } from './backtest-overfitting.js';
import { STEP_WORK } from './cscv-scorers.js';
import { deflatedSharpeOfReturns } from './deflated-sharpe.js';
import { runSteps, runStepsInSlices, type SliceOptions, type Steps } from './time-slices.js';

/*
 * The overfitting statistics of an optimization, from its trials' per-period returns: the
 * Deflated Sharpe Ratio of the best trial and the Probability of Backtest Overfitting of the
 * search. Pure functions over plain data, sync and async (the same steps, time-slices.ts); the
 * statistics themselves are deflated-sharpe.ts and backtest-overfitting.ts
 * (docs/overfitting-statistics.md).
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
 *   vary scores +-Infinity or 0, which ranks without NaN), S = `cscvPartitions(T, N)` blocks:
 *   16 at most, fewer (down to MIN_CSCV_PARTITIONS) for large N so that C(S, S/2) x N stays
 *   within MAX_CSCV_TRIAL_SPLITS. Null when T < 2, or when N is so large that even
 *   MIN_CSCV_PARTITIONS blocks are over that budget (above 428,571 trials).
 * - Bounded: the returns are read in place (no T x N matrix is built); working memory about
 *   4 S N numbers; CPU about 40 ns x C(S, S/2) x N for PBO plus O(N T), at most a couple of
 *   seconds; the async variant gives the event loop back every ~10 ms of it.
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
/** The fewest CSCV blocks the work budget may bring S down to (C(8, 4) = 70 splits): below, PBO is null. */
export const MIN_CSCV_PARTITIONS = 8;
/**
 * The work budget of an optimization's PBO: at most this many (split, trial) pairs, C(S, S/2) x N,
 * about 40 ns each on Node 20 (so about 1.2 s of CPU at most).
 */
export const MAX_CSCV_TRIAL_SPLITS = 30_000_000;
/** The fewest periods the DSR of the best trial needs. */
export const MIN_DSR_PERIODS = 3;

/** C(n, k), exact for the small n used here. */
function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}

/**
 * The number of CSCV blocks S for T periods and N trials: the largest even S <= min(16, T) whose
 * C(S, S/2) x N is within MAX_CSCV_TRIAL_SPLITS, but not below MIN_CSCV_PARTITIONS (nor below
 * the largest even number <= T, when that is smaller). So every block holds at least one period,
 * and for T >= 16: S = 16 up to 2,331 trials, 14 up to 8,741, 12 up to 32,467, 10 up to 119,047
 * (the plans' 100,000 trials), 8 up to 428,571. Null when T < 2 (no even S >= 2 fits) or when
 * even that smallest S is over the budget.
 */
export function cscvPartitions(periods: number, trials: number): number | null {
  const most = Math.min(MAX_CSCV_PARTITIONS, Math.floor(periods));
  const even = most - (most % 2);
  for (let s = even; s >= Math.min(MIN_CSCV_PARTITIONS, even) && s >= 2; s -= 2) {
    if (binomial(s, s / 2) * trials <= MAX_CSCV_TRIAL_SPLITS) return s;
  }
  return null;
}

/**
 * The Deflated Sharpe Ratio of the best trial (`bestIndex`, null when no trial was feasible) and
 * the PBO of the search, in the shapes of the optimization's results; each null when it cannot be
 * computed (see the guarantees above). Cost: O(N T) plus PBO's C(S, S/2) x N (within
 * MAX_CSCV_TRIAL_SPLITS): up to about 2 s of CPU for 100,000 trials of 512 periods, during which
 * it blocks the event loop; in a server, use `overfittingStatisticsAsync`. Working memory beyond
 * the trials' returns (which it reads in place, never copies into a matrix): about 4 S N numbers.
 */
export function overfittingStatistics(trials: readonly TrialReturns[], bestIndex: number | null): OverfittingStatistics {
  return runSteps(overfittingSteps(trials, bestIndex));
}

/**
 * `overfittingStatistics` without blocking the event loop: the same computation in slices of about
 * `sliceMs` (default 10 ms) of work with a turn of the event loop before each; the same result to
 * the last bit. Rejects with VALIDATION_FAILED as the sync one throws, and with the signal's
 * reason once `signal` is aborted (at the next slice). The trials' returns must not change until
 * it settles.
 */
export async function overfittingStatisticsAsync(
  trials: readonly TrialReturns[],
  bestIndex: number | null,
  slices: SliceOptions = {},
): Promise<OverfittingStatistics> {
  return runStepsInSlices(overfittingSteps(trials, bestIndex), slices);
}

function* overfittingSteps(trials: readonly TrialReturns[], bestIndex: number | null): Steps<OverfittingStatistics> {
  const withReturns = yield* checkedTrials(trials, bestIndex);
  if (withReturns.length < 2) return { deflatedSharpe: null, pbo: null };
  const periods = withReturns[0]!.returns.length;
  const deflatedSharpe = yield* deflatedSharpeOfBest(withReturns, bestIndex, periods);
  const pbo = yield* backtestOverfitting(withReturns, periods);
  return { deflatedSharpe, pbo };
}

type WithReturns = { index: number; returns: Float64Array; feasible: boolean };

/** Trials per step when each costs about `work` value operations. */
function trialsPerStep(work: number): number {
  return Math.max(1, Math.floor(STEP_WORK / Math.max(1, work)));
}

/** The trials with returns, by ascending index, after the contract's checks. */
function* checkedTrials(trials: readonly TrialReturns[], bestIndex: number | null): Steps<WithReturns[]> {
  const byIndex = new Map<number, TrialReturns>();
  const cheapPerStep = trialsPerStep(16);
  for (let k = 0; k < trials.length; k++) {
    const trial = trials[k]!;
    if (byIndex.has(trial.index)) throw invalid(`Trial ${trial.index} is given twice`);
    byIndex.set(trial.index, trial);
    if ((k + 1) % cheapPerStep === 0) yield;
  }
  const withReturns = trials.filter((t): t is WithReturns => t.returns !== null);
  if (withReturns.some((t, k) => k > 0 && t.index < withReturns[k - 1]!.index)) {
    // A numeric sort of the indices, not of the objects: a few ms for 100,000 trials.
    const sorted = new Float64Array(withReturns.length);
    for (let k = 0; k < sorted.length; k++) sorted[k] = withReturns[k]!.index;
    sorted.sort();
    yield;
    for (let k = 0; k < sorted.length; k++) {
      withReturns[k] = byIndex.get(sorted[k]!) as WithReturns;
      if ((k + 1) % cheapPerStep === 0) yield;
    }
  }
  const periods = withReturns[0]?.returns.length;
  const perStep = trialsPerStep(periods ?? 0);
  for (let k = 0; k < withReturns.length; k++) {
    const { index, returns } = withReturns[k]!;
    if (returns.length !== periods)
      throw invalid(`Trial ${index} has ${returns.length} returns, others ${periods}: the trials of one search share their periods`);
    for (const r of returns) if (!Number.isFinite(r)) throw invalid(`Trial ${index} has a return that is not a finite number`);
    if ((k + 1) % perStep === 0) yield;
  }
  if (bestIndex !== null && !withReturns.some((t) => t.index === bestIndex && t.feasible)) {
    throw invalid(`The best trial ${bestIndex} is not a feasible trial with returns`);
  }
  return withReturns;
}

function* deflatedSharpeOfBest(trials: readonly WithReturns[], bestIndex: number | null, periods: number): Steps<DeflatedSharpeResult | null> {
  const best = trials.find((t) => t.index === bestIndex);
  if (!best || periods < MIN_DSR_PERIODS || periodSharpe(best.returns) === null) return null;
  const sharpes: number[] = [];
  const perStep = trialsPerStep(2 * periods);
  for (let k = 0; k < trials.length; k++) {
    const sharpe = periodSharpe(trials[k]!.returns);
    if (sharpe !== null) sharpes.push(sharpe);
    if ((k + 1) % perStep === 0) yield;
  }
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

/** PBO over the trials' returns read in place (each trial's Float64Array is its column): no T x N copy. */
function* backtestOverfitting(trials: readonly WithReturns[], periods: number): Steps<OverfittingResult | null> {
  const partitions = cscvPartitions(periods, trials.length);
  if (partitions === null) return null;
  const columns = { periods, trials: trials.length, column: (n: number) => trials[n]!.returns, value: (t: number, n: number) => trials[n]!.returns[t]! };
  const result = yield* cscvSteps(columns, partitions);
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
