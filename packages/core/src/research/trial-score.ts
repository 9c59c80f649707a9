import type { OptimizationObjective, OptimizationSummary, OptimizationTrial } from '@stratbox/contract';
import type { TrialMetricValues } from '../ports/store-optimizations.js';

/*
 * How an optimization scores its trials and picks the best one. Pure functions over plain data.
 *
 * Guarantees:
 * - An objective is a finite number or null, never NaN or ±Infinity: a metric that is missing,
 *   null or not finite is null.
 * - `compareTrials` is a total order ("best first"): feasible trials before infeasible ones, then
 *   the objective descending with null last, then the index ascending. Sorting with it never
 *   depends on the input order (indices are unique).
 * - `bestTrial` is the first trial of that order that is feasible with a finite objective: the
 *   largest objective, the lowest index on a tie; null when no trial qualifies.
 */

/** A trial's metrics (the contract's `TrialMetrics`): a backtest's, without the per-symbol breakdown. */
export type TrialMetrics = TrialMetricValues;

/** The constraints a trial must meet to be the best (the contract's `SearchConstraints`). */
export type TrialConstraints = OptimizationSummary['constraints'];

/** What ranking a trial needs of it. */
export type RankedTrial = Pick<OptimizationTrial, 'index' | 'feasible' | 'objective'>;

/** The objective metric of a trial as a finite number; null when the metrics are null, or the metric is missing, null, NaN or infinite. */
export function objectiveOf(metrics: TrialMetrics | null | undefined, objective: OptimizationObjective): number | null {
  const value: unknown = metrics?.[objective];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Whether a trial may be the best: completed, with a finite objective, and meeting every
 * constraint given: `metrics.tradeCount >= minTrades`, and `metrics.maxDrawdown <= maxDrawdown`
 * (both positive fractions: the engine's maxDrawdown is the largest fall from a peak, 0.25 for a
 * 25 % fall; a drawdown equal to the limit is allowed). A constraint that cannot be checked
 * (metrics null, the metric null or not finite) is not met.
 */
export function isFeasible(trial: Pick<OptimizationTrial, 'status' | 'objective' | 'metrics'>, constraints: TrialConstraints): boolean {
  if (trial.status !== 'completed' || !isFiniteNumber(trial.objective)) return false;
  const { minTrades, maxDrawdown } = constraints;
  if (minTrades !== undefined && !(isFiniteNumber(trial.metrics?.tradeCount) && trial.metrics.tradeCount >= minTrades)) return false;
  if (maxDrawdown !== undefined && !(isFiniteNumber(trial.metrics?.maxDrawdown) && trial.metrics.maxDrawdown <= maxDrawdown)) return false;
  return true;
}

/**
 * The "best first" order, for `Array.prototype.sort`: negative when `a` comes before `b`.
 * Feasible before infeasible, then objective descending (null or not finite: last), then index
 * ascending.
 */
export function compareTrials(a: RankedTrial, b: RankedTrial): number {
  if (a.feasible !== b.feasible) return a.feasible ? -1 : 1;
  const x = finiteOrNull(a.objective);
  const y = finiteOrNull(b.objective);
  if (x !== y) {
    if (y === null) return -1;
    if (x === null) return 1;
    return x > y ? -1 : 1;
  }
  return a.index - b.index;
}

/** The first trial in `compareTrials` order that is feasible with a finite objective, or null: one pass, no sort. */
export function bestTrial<T extends RankedTrial>(trials: readonly T[]): T | null {
  let best: T | null = null;
  for (const trial of trials) {
    if (!trial.feasible || !isFiniteNumber(trial.objective)) continue;
    if (best === null || compareTrials(trial, best) < 0) best = trial;
  }
  return best;
}

function isFiniteNumber(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function finiteOrNull(value: number | null): number | null {
  return isFiniteNumber(value) ? value : null;
}
