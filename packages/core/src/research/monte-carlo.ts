import { createRandom } from '../engine/guest/determinism.js';

/*
 * Monte Carlo over a backtest's trades (docs/research.md, "Monte Carlo"): plain functions over
 * plain data, no I/O, no clock, no `Math.random`.
 *
 * Guarantees:
 * - The model: each trade is one return, its P&L over the equity before it (starting capital plus
 *   the P&L of the trades that closed earlier); a path compounds returns from 1. Open positions'
 *   marks between trades and the time between trades are not part of it.
 * - Deterministic: the same returns and options give the same answer (the seeded sfc32 of the
 *   sandbox, `createRandom`; IEEE arithmetic only). Another seed draws other paths.
 * - `shuffle` permutes the returns (Fisher-Yates, without replacement): every order is equally
 *   likely, and the final return is the same in every run, up to floating-point rounding.
 *   `bootstrap` draws as many returns as there are, uniformly with replacement.
 * - Percentiles interpolate linearly between order statistics (numpy's default).
 * - The work is `runs × returns.length` steps and memory is O(runs + returns): no path is kept.
 */

export type MonteCarloMethod = 'shuffle' | 'bootstrap';

/** A closed trade as the model reads it: its P&L (net of fees and funding) and when it closed. */
export interface MonteCarloTrade {
  pnl: number;
  exitTime: string;
}

export interface MonteCarloOptions {
  method: MonteCarloMethod;
  /** Paths to draw, 1 or more. */
  runs: number;
  /** Seed of the generator (used as an unsigned 32-bit integer). */
  seed: number;
  /** Fraction of the starting equity whose loss is ruin, in (0, 1]: a path is ruined at or below `1 - ruinThreshold`. */
  ruinThreshold: number;
}

/** A distribution over runs: five percentiles and the mean. */
export interface Distribution {
  p5: number;
  p25: number;
  p50: number;
  p75: number;
  p95: number;
  mean: number;
}

export interface MonteCarloResult {
  /** Final equity over starting equity, minus 1. */
  finalReturn: Distribution;
  /** Largest fall from a running peak, as a fraction of that peak (0 when the path never falls). */
  maxDrawdown: Distribution;
  /** Most consecutive trades after which the equity was below an earlier peak. */
  longestDrawdown: Distribution;
  /** Share of runs whose equity was at or below `1 - ruinThreshold` after some trade. */
  probabilityOfRuin: number;
}

/** What one path did. */
export interface PathStats {
  finalReturn: number;
  maxDrawdown: number;
  longestDrawdown: number;
  ruined: boolean;
}

/**
 * The per-trade returns of a backtest, in order of exit (equal exit times keep the given order):
 * each trade's P&L over the equity before it, `initialCapital` plus the P&L of the trades before
 * it in that order. A return is never below -1 (a trade cannot take more than the equity); once
 * that equity is 0 or less the rest of the trades have nothing to be a return on and are left out.
 */
export function tradeReturns(trades: readonly MonteCarloTrade[], initialCapital: number): number[] {
  if (!(initialCapital > 0)) throw new RangeError(`initialCapital must be > 0, got ${initialCapital}`);
  const ordered = trades.map((trade, index) => ({ trade, index }));
  ordered.sort((a, b) => (a.trade.exitTime < b.trade.exitTime ? -1 : a.trade.exitTime > b.trade.exitTime ? 1 : a.index - b.index));
  const returns: number[] = [];
  let equity = initialCapital;
  for (const { trade } of ordered) {
    if (!(equity > 0)) break;
    returns.push(Math.max(-1, trade.pnl / equity));
    equity += trade.pnl;
  }
  return returns;
}

/** Drawdowns and ruin of one path: equity 1 compounded by `path[0]`, `path[1]`... in order. */
export function pathStats(path: ArrayLike<number>, ruinThreshold: number): PathStats {
  const walk = createPathWalk(1 - ruinThreshold);
  for (let i = 0; i < path.length; i++) walk.step(path[i]!);
  return walk.stats();
}

/**
 * The `p`-th percentile (0..100) of ascending `sorted` values: linear interpolation between the
 * order statistics at rank `(n - 1) × p / 100` (numpy's default, `method="linear"`). 0 when empty.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const rank = ((n - 1) * p) / 100;
  const low = Math.floor(rank);
  const high = Math.min(low + 1, n - 1);
  const lowValue = sorted[low]!;
  return lowValue + (rank - low) * (sorted[high]! - lowValue);
}

/** The percentiles and mean of `values` (sorted in place). All 0 when empty. */
export function distribution(values: Float64Array): Distribution {
  values.sort();
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return {
    p5: percentile(values, 5),
    p25: percentile(values, 25),
    p50: percentile(values, 50),
    p75: percentile(values, 75),
    p95: percentile(values, 95),
    mean: values.length === 0 ? 0 : sum / values.length,
  };
}

/**
 * `runs` paths of `returns` by `method`, drawn from one generator seeded with `seed` (run after
 * run, so the first runs of a longer simulation are those of a shorter one with the same seed),
 * and the distributions of what they did. No returns: every path stays at 1 (all zeros).
 */
export function runMonteCarlo(returns: readonly number[], options: MonteCarloOptions): MonteCarloResult {
  const simulation = createMonteCarlo(returns, options);
  simulation.run(options.runs);
  return simulation.result();
}

/**
 * The simulation of `runMonteCarlo`, a few runs at a time: `run(k)` draws up to `k` more paths and
 * answers whether any are left, so a server can give its event loop back between slices of a long
 * one. `result()` once every run is drawn answers exactly what `runMonteCarlo` does.
 */
export function createMonteCarlo(returns: readonly number[], options: MonteCarloOptions) {
  const { method, runs, seed, ruinThreshold } = options;
  if (!Number.isSafeInteger(runs) || runs < 1) throw new RangeError(`runs must be a whole number >= 1, got ${runs}`);
  if (!(ruinThreshold > 0 && ruinThreshold <= 1)) throw new RangeError(`ruinThreshold must be in (0, 1], got ${ruinThreshold}`);
  const random = createRandom(seed);
  const n = returns.length;
  const path = Float64Array.from(returns);
  const finals = new Float64Array(runs);
  const drawdowns = new Float64Array(runs);
  const longest = new Float64Array(runs);
  let ruined = 0;
  let done = 0;
  const walk = createPathWalk(1 - ruinThreshold);
  return {
    /** Draws up to `count` more runs; false once all `runs` are drawn. */
    run(count: number): boolean {
      const end = Math.min(runs, done + count);
      for (; done < end; done++) {
        walk.reset();
        if (method === 'shuffle') {
          // Fisher-Yates over the previous run's order: uniform whatever order it starts from
          for (let i = n - 1; i > 0; i--) {
            const j = Math.floor(random() * (i + 1));
            const swap = path[i]!;
            path[i] = path[j]!;
            path[j] = swap;
          }
          for (let i = 0; i < n; i++) walk.step(path[i]!);
        } else {
          for (let i = 0; i < n; i++) walk.step(returns[Math.floor(random() * n)]!);
        }
        const stats = walk.stats();
        finals[done] = stats.finalReturn;
        drawdowns[done] = stats.maxDrawdown;
        longest[done] = stats.longestDrawdown;
        if (stats.ruined) ruined++;
      }
      return done < runs;
    },
    /** The distributions over every run (all must be drawn). */
    result(): MonteCarloResult {
      if (done < runs) throw new RangeError(`${runs - done} runs are still to be drawn`);
      return {
        finalReturn: distribution(finals),
        maxDrawdown: distribution(drawdowns),
        longestDrawdown: distribution(longest),
        probabilityOfRuin: ruined / runs,
      };
    },
  };
}

/** One path walked a return at a time, from equity 1: the running peak, drawdowns and ruin. */
function createPathWalk(ruinLevel: number) {
  let equity = 1;
  let peak = 1;
  let maxDrawdown = 0;
  let underwater = 0;
  let longest = 0;
  let ruined = false;
  return {
    reset() {
      equity = 1;
      peak = 1;
      maxDrawdown = 0;
      underwater = 0;
      longest = 0;
      ruined = false;
    },
    step(r: number) {
      equity *= 1 + r;
      if (equity < peak) {
        const drawdown = 1 - equity / peak;
        if (drawdown > maxDrawdown) maxDrawdown = drawdown;
        if (++underwater > longest) longest = underwater;
      } else {
        peak = equity;
        underwater = 0;
      }
      if (equity <= ruinLevel) ruined = true;
    },
    stats(): PathStats {
      return { finalReturn: equity - 1, maxDrawdown, longestDrawdown: longest, ruined };
    },
  };
}
