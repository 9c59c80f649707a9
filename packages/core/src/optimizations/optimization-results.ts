import { OPTIMIZATION_MAX_TRIALS, type OptimizationResults } from '@stratbox/contract';
import type { OptimizationBestRecord, OptimizationSpec, OptimizationTrialRecord, TrialMetricValues } from '../ports/store-optimizations.js';
import type { RunMetrics, TrialRunOutcome } from '../ports/strategy-runner.js';
import { overfittingStatisticsAsync } from '../research/optimization-statistics.js';
import { gridPoints, type SearchSpace } from '../research/search-space.js';
import { pairSensitivity, paramSensitivity } from '../research/sensitivity.js';
import { stitchEquity, walkForwardEfficiency } from '../research/walk-forward.js';
import type { OptimizationPlan } from './optimization-plan.js';

/** A fold's winner and what it did out of sample (null: no feasible trial in the fold, nothing tested). */
export type FoldTest =
  | { fold: number; winner: null; outcome: null }
  | { fold: number; winner: OptimizationBestRecord; outcome: TrialRunOutcome; periodMs: number };

export interface ResultsInput {
  spec: OptimizationSpec;
  plan: OptimizationPlan;
  /** The trials of the final search: every trial without validation, the last fold's with it. */
  trials: readonly OptimizationTrialRecord[];
  best: OptimizationBestRecord | null;
  tests: readonly FoldTest[];
  timeframeMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

function totalReturnOf(metrics: TrialMetricValues | RunMetrics): number | null {
  const value = metrics.totalReturn;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * The results of a completed optimization (docs/research.md):
 * - sensitivity over the trials of the final search (every trial, or the last fold's): per
 *   searched parameter and per pair, the best (and mean) objective of the feasible trials;
 * - per fold, the in-sample winner's metrics beside its out-of-sample metrics, and the
 *   walk-forward efficiency (annualized out-of-sample over in-sample return) per fold and mean;
 * - the folds' out-of-sample equity chained into one curve (sampled at the end of each period);
 * - the Deflated Sharpe Ratio of the best trial and the PBO of the final search, computed in
 *   slices that give the event loop back (a large search takes a second or two of CPU).
 */
export async function buildOptimizationResults(input: ResultsInput, signal?: AbortSignal): Promise<OptimizationResults> {
  const { spec, plan, trials, best, tests } = input;
  const grid = gridPoints(spec.searchSpace as SearchSpace, OPTIMIZATION_MAX_TRIALS);
  const searched = Object.entries(grid.values).map(([name, values]) => ({ name, values: values.map(String) }));

  const tested = tests.flatMap((t) => {
    const fold = plan.folds[t.fold]!;
    if (!t.winner || !t.outcome?.ok) return [];
    const inSample = totalReturnOf(t.winner.metrics);
    const outOfSample = totalReturnOf(t.outcome.metrics);
    if (inSample === null || outOfSample === null) return [];
    return [{ fold: t.fold, inSample: { ...fold.inSample, totalReturn: inSample }, outOfSample: { ...fold.outOfSample, totalReturn: outOfSample } }];
  });
  const efficiency = walkForwardEfficiency(tested);
  const efficiencyOf = new Map(tested.map((t, k) => [t.fold, efficiency.folds[k]!.efficiency]));

  const folds = tests.map((t) => {
    const fold = plan.folds[t.fold]!;
    const outMetrics = t.outcome?.ok ? withoutPerSymbol(t.outcome.metrics) : null;
    return {
      index: t.fold,
      inSample: { start: iso(fold.inSample.start), end: iso(fold.inSample.end), metrics: t.winner?.metrics ?? null },
      outOfSample: { start: iso(fold.outOfSample.start), end: iso(fold.outOfSample.end), metrics: outMetrics },
      params: t.winner?.params ?? null,
      efficiency: efficiencyOf.get(t.fold) ?? null,
    };
  });

  return {
    sensitivity: { params: paramSensitivity(trials, searched), pairs: pairSensitivity(trials, searched) },
    folds,
    walkForwardEfficiency: efficiency.efficiency,
    outOfSampleEquity: outOfSampleEquity(input),
    overfitting: await overfittingStatisticsAsync(trials, best?.index ?? null, signal ? { signal } : {}),
  };
}

/** The tested folds' per-period returns chained from the initial capital: one point at the end of each period. */
function outOfSampleEquity({ spec, plan, tests }: ResultsInput): OptimizationResults['outOfSampleEquity'] {
  const curves = tests.flatMap((t) => {
    if (!t.outcome?.ok) return [];
    const window = plan.folds[t.fold]!.outOfSample;
    const times: number[] = [];
    const values: number[] = [];
    let equity = spec.initialCapital;
    t.outcome.returns.forEach((r, k) => {
      equity *= 1 + r;
      times.push(Math.min(window.end, window.start + (k + 1) * t.periodMs));
      values.push(equity);
    });
    return [{ times, values, initial: spec.initialCapital }];
  });
  if (curves.length === 0) return null;
  const stitched = stitchEquity(curves);
  return stitched.times.map((time, i) => ({ time: iso(time), equity: stitched.values[i]! }));
}

/** A trial keeps the whole run's metrics, not the per-symbol breakdown. */
export function withoutPerSymbol(metrics: RunMetrics): TrialMetricValues {
  const { perSymbol: _, ...rest } = metrics;
  return rest;
}
