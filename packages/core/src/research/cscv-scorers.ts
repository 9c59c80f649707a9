import { StratboxError } from '../errors/index.js';
import type { Steps } from './time-slices.js';

/*
 * How CSCV (backtest-overfitting.ts) scores every trial on a set of blocks of periods: the default
 * Sharpe ratio from per-block statistics merged across all trials at once, or a custom metric
 * called with the trial's rows. Scoring is split into ranges of trials so that a step of work
 * stays small (`STEP_WORK`) whatever the number of trials.
 */

/** About how many value operations (a read and an add, say) one step does before yielding. */
export const STEP_WORK = 1 << 16;

/** A trial's score over some of its periods (given in time order); larger is better. */
export type PerformanceMetric = (values: readonly number[]) => number;

/**
 * The T x N performance CSCV reads: `column(n)` answers trial n's T values in time order, valid
 * until the next call (it may reuse one buffer); `value(t, n)` one value.
 */
export interface PerformanceColumns {
  periods: number;
  trials: number;
  column(n: number): ArrayLike<number>;
  value(t: number, n: number): number;
}

/**
 * Scores every trial on one set of blocks: `start(blocks)`, then `score(from, to, out)` over
 * ranges of trials that cover 0..N-1 (each trial's score into `out[n]`), all before the next
 * `start`. `trialsPerStep` is how many trials a step of about STEP_WORK scores.
 */
export interface Scorer {
  start(blocks: readonly number[]): void;
  score(from: number, to: number, out: Float64Array): void;
  trialsPerStep: number;
}

function invalid(message: string): StratboxError {
  return new StratboxError('VALIDATION_FAILED', message);
}

/** Sharpe ratio of values by their count, mean and sum of squared deviations. */
export function sharpeOf(count: number, mean: number, squares: number): number {
  const sd = Math.sqrt(squares / count);
  if (sd > 0) return mean / sd;
  return mean > 0 ? Number.POSITIVE_INFINITY : mean < 0 ? Number.NEGATIVE_INFINITY : 0;
}

/** Row ranges [start, end) of S contiguous blocks, the first T mod S one row longer. */
export function blocksOf(periods: number, partitions: number): [number, number][] {
  const base = Math.floor(periods / partitions);
  const extra = periods % partitions;
  const blocks: [number, number][] = [];
  let start = 0;
  for (let s = 0; s < partitions; s++) {
    const end = start + base + (s < extra ? 1 : 0);
    blocks.push([start, end]);
    start = end;
  }
  return blocks;
}

/** Per block: its row count, and per trial (block-major, `b * N + n`) the mean and sum of squared deviations of its rows. */
export interface BlockStats {
  counts: number[];
  means: Float64Array;
  squares: Float64Array;
}

/** The block statistics of every trial, a step per STEP_WORK values read. Memory: 2 S N numbers. */
export function* blockStatsSteps(source: PerformanceColumns, ranges: [number, number][]): Steps<BlockStats> {
  const { trials } = source;
  const means = new Float64Array(ranges.length * trials);
  const squares = new Float64Array(ranges.length * trials);
  const perStep = Math.max(1, Math.floor(STEP_WORK / (2 * source.periods)));
  for (let n = 0; n < trials; n++) {
    const values = source.column(n);
    ranges.forEach(([start, end], b) => {
      const count = end - start;
      let sum = 0;
      for (let t = start; t < end; t++) sum += values[t]!;
      const mean = sum / count;
      let sq = 0;
      for (let t = start; t < end; t++) sq += (values[t]! - mean) ** 2;
      means[b * trials + n] = mean;
      squares[b * trials + n] = sq;
    });
    if ((n + 1) % perStep === 0) yield;
  }
  return { counts: ranges.map(([start, end]) => end - start), means, squares };
}

/**
 * The default metric's scorer. A set of blocks is merged block by block (Chan, Golub and
 * LeVeque's pairwise update of counts, means and sums of squared deviations), in the order given,
 * across all trials at once, keeping the merge after each block: the next set re-merges only from
 * the first block where its list differs from the last one's. Consecutive combinations in
 * lexicographic order (and their complements, in reverse lexicographic order) share most of their
 * prefix, so a combination costs about 2 block merges instead of S/2. Every trial's merge is the
 * same operations in the same order as merging its blocks one by one from nothing, so its score
 * is the same to the last bit. One scorer per sequence of sets (its cache follows that sequence).
 * Memory: 2 S/2 N numbers of cache.
 */
export function sharpeScorer(stats: BlockStats, trials: number): Scorer {
  const levelMeans: Float64Array[] = [];
  const levelSquares: Float64Array[] = [];
  const levelCounts: number[] = [];
  const empty = new Float64Array(trials);
  let blocks: readonly number[] = [];
  let same = 0;
  return {
    trialsPerStep: Math.max(1, Math.floor(STEP_WORK / 8)),
    start(next) {
      same = 0;
      while (same < next.length && same < blocks.length && next[same] === blocks[same]) same++;
      for (let level = same; level < next.length; level++) {
        levelCounts[level] = (level > 0 ? levelCounts[level - 1]! : 0) + stats.counts[next[level]!]!;
        levelMeans[level] ??= new Float64Array(trials);
        levelSquares[level] ??= new Float64Array(trials);
      }
      blocks = next.slice();
    },
    score(from, to, out) {
      for (let level = same; level < blocks.length; level++) {
        const b = blocks[level]!;
        const count = level > 0 ? levelCounts[level - 1]! : 0;
        const prevMeans = level > 0 ? levelMeans[level - 1]! : empty;
        const prevSquares = level > 0 ? levelSquares[level - 1]! : empty;
        const means = levelMeans[level]!;
        const squares = levelSquares[level]!;
        const blockCount = stats.counts[b]!;
        const total = count + blockCount;
        const offset = b * trials;
        for (let n = from; n < to; n++) {
          const delta = stats.means[offset + n]! - prevMeans[n]!;
          squares[n] = prevSquares[n]! + (stats.squares[offset + n]! + (delta * delta * count * blockCount) / total);
          means[n] = prevMeans[n]! + (delta * blockCount) / total;
        }
      }
      const top = blocks.length - 1;
      for (let n = from; n < to; n++) out[n] = sharpeOf(levelCounts[top]!, levelMeans[top]![n]!, levelSquares[top]![n]!);
    },
  };
}

/** A custom metric's scorer: the metric called with each trial's rows of the blocks, in time order; NaN is refused. */
export function customScorer(source: PerformanceColumns, ranges: [number, number][], metric: PerformanceMetric): Scorer {
  let blocks: readonly number[] = [];
  return {
    trialsPerStep: Math.max(1, Math.floor(STEP_WORK / (2 * source.periods))),
    start(next) {
      blocks = next.slice();
    },
    score(from, to, out) {
      for (let n = from; n < to; n++) {
        const values: number[] = [];
        for (const b of blocks) for (let t = ranges[b]![0]; t < ranges[b]![1]; t++) values.push(source.value(t, n));
        const score = metric(values);
        if (Number.isNaN(score)) throw invalid(`The metric answered NaN for trial ${n}`);
        out[n] = score;
      }
    },
  };
}

/** Scores every trial on `blocks` into `out`, a step per `scorer.trialsPerStep` trials. */
export function* scoreSteps(scorer: Scorer, blocks: readonly number[], out: Float64Array): Steps<void> {
  scorer.start(blocks);
  for (let from = 0; from < out.length; from += scorer.trialsPerStep) {
    scorer.score(from, Math.min(out.length, from + scorer.trialsPerStep), out);
    yield;
  }
}
