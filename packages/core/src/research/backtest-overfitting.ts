/*
 * The Probability of Backtest Overfitting by combinatorially symmetric cross-validation (CSCV)
 * (D. H. Bailey, J. M. Borwein, M. López de Prado and Q. J. Zhu, "The Probability of Backtest
 * Overfitting", Journal of Computational Finance 20(4), 2017; SSRN 2326253). Pure functions over
 * a matrix of per-period performance; formulas, conventions and limits in
 * docs/overfitting-statistics.md. The computation is written once, as steps (time-slices.ts): the
 * sync function runs them at once, the async one in time slices that leave the event loop free.
 *
 * Conventions:
 * - The matrix is T x N: `performance[t][n]` is trial n's performance (a return, a P&L) in period t,
 *   every row the same N trials in the same order, rows in time order.
 * - The T rows are cut into S contiguous blocks of T/S rows; when S does not divide T, the first
 *   T mod S blocks take one row more (so in-sample and out-of-sample lengths may differ by up to
 *   S/2 rows). No row is dropped.
 * - Each of the C(S, S/2) ways to pick S/2 blocks is one in-sample set (its rows in time order),
 *   the other blocks its out-of-sample set; each set and its complement are both counted.
 * - The in-sample best trial is the one with the largest metric (the first such, on a tie).
 * - Its out-of-sample rank r is 1 for the worst trial to N for the best (tied trials share the
 *   mean of their ranks); its relative rank is w = r / (N + 1) (the paper's omega-bar), its logit
 *   lambda = ln(w / (1 - w)). lambda <= 0 means it did no better than the out-of-sample median.
 * - PBO is the share of combinations with lambda <= 0.
 * - The default metric is the Sharpe ratio, mean / standard deviation (divisor: the rows' count);
 *   a trial that does not vary scores +Infinity, -Infinity or 0 by the sign of its mean.
 */
import { StratboxError } from '../errors/index.js';
import {
  blocksOf,
  blockStatsSteps,
  customScorer,
  type PerformanceColumns,
  type PerformanceMetric,
  type Scorer,
  scoreSteps,
  sharpeOf,
  STEP_WORK,
  sharpeScorer,
} from './cscv-scorers.js';
import { runSteps, runStepsInSlices, type SliceOptions, type Steps } from './time-slices.js';

export type { PerformanceColumns, PerformanceMetric } from './cscv-scorers.js';

export interface BacktestOverfittingOptions {
  /** S, the number of blocks the periods are cut into: even, at least 2, at most T. Default 16. */
  partitions?: number;
  /** The score that selects in-sample and ranks out-of-sample. Default: the Sharpe ratio (see above). */
  metric?: PerformanceMetric;
}

/** One in-sample / out-of-sample split and what the in-sample best trial did. */
export interface CscvCombination {
  /** Indices of the blocks (0 to S - 1) that were in-sample; the others were out-of-sample. */
  inSample: number[];
  /** The trial (column) with the best in-sample metric. */
  selected: number;
  /** Its in-sample metric. */
  inSampleMetric: number;
  /** Its out-of-sample metric: with `inSampleMetric`, one point of the performance degradation. */
  outOfSampleMetric: number;
  /** Its out-of-sample relative rank w = r / (N + 1), in (0, 1). */
  relativeRank: number;
  /** lambda = ln(w / (1 - w)). */
  logit: number;
}

export interface BacktestOverfittingResult {
  /** The share of combinations whose in-sample best trial ranked at or below the out-of-sample median (lambda <= 0). */
  pbo: number;
  /** Every combination, in lexicographic order of `inSample`. */
  combinations: CscvCombination[];
  /** T, N and S as used. */
  periods: number;
  trials: number;
  partitions: number;
}

function invalid(message: string): StratboxError {
  return new StratboxError('VALIDATION_FAILED', message);
}

/** The Sharpe ratio mean / standard deviation (divisor: the count), the default metric. */
export const sharpeMetric: PerformanceMetric = (values) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return sharpeOf(
    values.length,
    mean,
    values.reduce((a, b) => a + (b - mean) ** 2, 0),
  );
};

/** Every choice of k of 0..n-1, in lexicographic order. */
export function combinationsOf(n: number, k: number): number[][] {
  const out: number[][] = [];
  const pick = Array.from({ length: k }, (_, i) => i);
  for (;;) {
    out.push(pick.slice());
    let i = k - 1;
    while (i >= 0 && pick[i] === n - k + i) i--;
    if (i < 0) return out;
    pick[i]!++;
    for (let j = i + 1; j < k; j++) pick[j] = pick[j - 1]! + 1;
  }
}

/** The rank of scores[i] among scores, 1 for the lowest to N for the highest, ties sharing their mean rank. */
function rankOf(scores: ArrayLike<number>, i: number): number {
  let below = 0;
  let tied = 0;
  const score = scores[i]!;
  for (let n = 0; n < scores.length; n++) {
    if (scores[n]! < score) below++;
    else if (scores[n] === score) tied++;
  }
  return below + (tied + 1) / 2;
}

/**
 * CSCV in steps over a T x N source already checked (T >= S, N >= 2, finite values, S even and at
 * least 2): the block statistics (or nothing, with a custom metric), then every combination, in
 * lexicographic order of its in-sample blocks. Working memory beyond the source: about 4 S N
 * numbers with the default metric (block statistics and the merge caches), 2 N with a custom one,
 * plus the combinations answered.
 */
export function* cscvSteps(source: PerformanceColumns, partitions: number, metric?: PerformanceMetric): Steps<BacktestOverfittingResult> {
  const { periods, trials } = source;
  const ranges = blocksOf(periods, partitions);
  let scoreIn: Scorer;
  let scoreOut: Scorer;
  if (metric) {
    scoreIn = scoreOut = customScorer(source, ranges, metric);
  } else {
    const stats = yield* blockStatsSteps(source, ranges);
    scoreIn = sharpeScorer(stats, trials);
    scoreOut = sharpeScorer(stats, trials);
  }
  const all = combinationsOf(partitions, partitions / 2);
  const combinations: CscvCombination[] = new Array(all.length);
  const scores = [new Float64Array(trials), new Float64Array(trials)] as const;
  let overfit = 0;
  /** The combination whose in-sample blocks scored `inScores` and out-of-sample ones `outScores`. */
  const record = (at: number, inScores: Float64Array, outScores: Float64Array) => {
    let selected = 0;
    for (let n = 1; n < trials; n++) if (inScores[n]! > inScores[selected]!) selected = n;
    const relativeRank = rankOf(outScores, selected) / (trials + 1);
    const logit = Math.log(relativeRank / (1 - relativeRank));
    if (logit <= 0) overfit++;
    combinations[at] = { inSample: all[at]!, selected, inSampleMetric: inScores[selected]!, outOfSampleMetric: outScores[selected]!, relativeRank, logit };
  };
  /*
   * In lexicographic order the last combination is the first's complement, and so on inwards
   * (complementsPaired): the two halves of a split are the two halves of its mirror, swapped.
   * Each pair is scored once, its halves merged block by block in ascending order either way, so
   * the mirror gets the very numbers a pass of its own would give, for half the work.
   */
  for (let k = 0; k < all.length / 2; k++) {
    const mirror = all.length - 1 - k;
    yield* scoreSteps(scoreIn, all[k]!, scores[0]);
    yield* scoreSteps(scoreOut, all[mirror]!, scores[1]);
    record(k, scores[0], scores[1]);
    record(mirror, scores[1], scores[0]);
  }
  return { pbo: overfit / combinations.length, combinations, periods, trials, partitions };
}

/** Whether, in `combinations` (every half of 0..S-1, in lexicographic order), the one at C - 1 - k is the complement of the one at k. */
export function complementsPaired(combinations: readonly (readonly number[])[], partitions: number): boolean {
  return combinations.every((inSample, k) => {
    const mirror = combinations[combinations.length - 1 - k]!;
    return inSample.length + mirror.length === partitions && inSample.every((b) => !mirror.includes(b));
  });
}

/** The matrix's CSCV steps, after checking it and the options (VALIDATION_FAILED, thrown by the first steps). */
function* matrixSteps(performance: readonly (readonly number[])[], options: BacktestOverfittingOptions): Steps<BacktestOverfittingResult> {
  const partitions = options.partitions ?? 16;
  const periods = performance.length;
  const trials = performance[0]?.length ?? 0;
  if (!Number.isInteger(partitions) || partitions < 2 || partitions % 2 !== 0) throw invalid('The number of partitions must be an even integer of at least 2');
  if (periods < partitions) throw invalid(`At least ${partitions} periods (one per partition) are needed, got ${periods}`);
  if (trials < 2) throw invalid('At least 2 trials are needed');
  const rowsPerStep = Math.max(1, Math.floor(STEP_WORK / trials));
  for (let t = 0; t < periods; t++) {
    const row = performance[t]!;
    if (row.length !== trials) throw invalid('Every period must hold one value per trial');
    if (!row.every(Number.isFinite)) throw invalid('Every performance value must be a finite number');
    if ((t + 1) % rowsPerStep === 0) yield;
  }
  const buffer = new Float64Array(periods);
  const column = (n: number) => {
    for (let t = 0; t < periods; t++) buffer[t] = performance[t]![n]!;
    return buffer;
  };
  return yield* cscvSteps({ periods, trials, column, value: (t, n) => performance[t]![n]! }, partitions, options.metric);
}

/**
 * PBO by CSCV over a T x N performance matrix: for every split of its S blocks into halves, the
 * trial best in-sample, its out-of-sample relative rank and logit; PBO is the share of logits
 * <= 0. Each split and its mirror (the same halves swapped) are scored once. The work is T x N
 * once plus C(S, S/2) / 2 x N x (about 4 block merges and 2 Sharpe ratios) with the default
 * metric (about 40 ns per trial and pair on Node 20: for S = 16, about 0.25 s for N = 1,000 and
 * 2.5 s for N = 10,000), and C(S, S/2) / 2 x N x T with a custom one. It runs to the
 * end before returning: in a server, use `probabilityOfBacktestOverfittingAsync`. Throws
 * VALIDATION_FAILED for a matrix that is not T x N with T >= S and N >= 2, a non-finite value, an
 * odd or out-of-range S, or a metric answering NaN.
 */
export function probabilityOfBacktestOverfitting(
  performance: readonly (readonly number[])[],
  options: BacktestOverfittingOptions = {},
): BacktestOverfittingResult {
  return runSteps(matrixSteps(performance, options));
}

/**
 * `probabilityOfBacktestOverfitting` without blocking the event loop: the same computation, run
 * in slices of about `sliceMs` (default 10 ms) of work with a turn of the event loop before each,
 * so other requests and timers keep running; the same result to the last bit. Rejects with
 * VALIDATION_FAILED as the sync one throws, and with the signal's reason once `signal` is aborted
 * (at the next slice). The matrix must not change until it settles.
 */
export async function probabilityOfBacktestOverfittingAsync(
  performance: readonly (readonly number[])[],
  options: BacktestOverfittingOptions = {},
  slices: SliceOptions = {},
): Promise<BacktestOverfittingResult> {
  return runStepsInSlices(matrixSteps(performance, options), slices);
}
