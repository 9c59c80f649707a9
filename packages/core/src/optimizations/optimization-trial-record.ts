import type { OptimizationObjective } from '@stratbox/contract';
import { runErrorFor } from '../runs/run-errors.js';
import type { OptimizationBestRecord, OptimizationRecord, OptimizationTrialRecord } from '../ports/store-optimizations.js';
import type { TrialRunOutcome } from '../ports/strategy-runner.js';
import { bestTrial, isFeasible, objectiveOf } from '../research/trial-score.js';
import { withoutPerSymbol } from './optimization-results.js';

/** A trial as stored, from the runner's outcome: scored by the optimization's objective and constraints. */
export function toTrialRecord(
  record: OptimizationRecord,
  ownsSource: boolean,
  index: number,
  fold: number | null,
  params: Record<string, string>,
  outcome: TrialRunOutcome,
): OptimizationTrialRecord {
  const { spec } = record;
  if (!outcome.ok) {
    const error = runErrorFor(Object.assign(new Error(outcome.error.message), { code: outcome.error.code }), ownsSource);
    return {
      optimizationId: record.id,
      index,
      fold,
      params,
      status: 'failed',
      objective: null,
      feasible: false,
      metrics: null,
      error,
      cpuMs: outcome.cpuMs,
      returns: null,
    };
  }
  const metrics = withoutPerSymbol(outcome.metrics);
  const objective = objectiveOf(metrics, spec.objective as OptimizationObjective);
  const trial = {
    optimizationId: record.id,
    index,
    fold,
    params,
    status: 'completed' as const,
    objective,
    metrics,
    error: null,
    cpuMs: outcome.cpuMs,
    returns: outcome.returns,
  };
  return { ...trial, feasible: isFeasible(trial, spec.constraints) };
}

/** The best of `trials` of one fold (null: no validation), as the record keeps it; null when none qualifies. */
export function bestOfTrials(trials: Iterable<OptimizationTrialRecord>, fold: number | null, backtestId: string | null = null): OptimizationBestRecord | null {
  const best = bestTrial([...trials].filter((t) => t.fold === fold));
  if (!best || best.objective === null || !best.metrics) return null;
  return { index: best.index, fold: best.fold, params: best.params, objective: best.objective, metrics: best.metrics, backtestId };
}

/**
 * The fold's best after `fresh` trials were stored: the record's best so far (when of the same
 * fold) or one of them, by the same order as `bestTrial` (largest objective, lowest index).
 */
export function mergeBest(
  current: OptimizationBestRecord | null,
  fold: number | null,
  fresh: readonly OptimizationTrialRecord[],
): OptimizationBestRecord | null {
  const kept = current !== null && current.fold === fold ? current : null;
  const challenger = bestOfTrials(fresh, fold);
  if (!kept || !challenger) return challenger ?? kept;
  const winner = bestTrial([
    { index: kept.index, feasible: true, objective: kept.objective },
    { index: challenger.index, feasible: true, objective: challenger.objective },
  ]);
  return winner?.index === challenger.index ? challenger : kept;
}
