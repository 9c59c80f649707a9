import type { OptimizationDetail, OptimizationProgressEvent, OptimizationResults, OptimizationSummary, OptimizationTrial } from '@stratbox/contract';
import type { OptimizationRecord, OptimizationTrialView } from '../ports/store-optimizations.js';

/** Channel of one optimization's progress. */
export function optimizationProgressChannel(id: string): `optimization:${string}:progress` {
  return `optimization:${id}:progress`;
}

/** The record as `GET /api/optimizations` lists it. */
export function toOptimizationSummary(r: OptimizationRecord): OptimizationSummary {
  const { spec } = r;
  return {
    id: r.id,
    strategyId: r.strategyId,
    strategyVersion: r.strategyVersion,
    status: r.status,
    progress: r.progress,
    trialsDone: r.trialsDone,
    trialsTotal: r.trialsTotal,
    symbols: spec.symbols,
    startDate: spec.startDate,
    endDate: spec.endDate,
    timeframe: spec.timeframe as OptimizationSummary['timeframe'],
    marketType: spec.marketType,
    fees: spec.fees,
    leverage: spec.leverage,
    slippage: spec.slippage,
    initialCapital: spec.initialCapital,
    params: spec.params,
    funding: spec.funding,
    searchSpace: spec.searchSpace,
    method: spec.method,
    objective: spec.objective as OptimizationSummary['objective'],
    constraints: spec.constraints,
    validation: spec.validation,
    best: r.best,
    computeMs: r.computeMs,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    error: r.error,
  };
}

/** The record with its results (null until completed). */
export function toOptimizationDetail(r: OptimizationRecord, results: OptimizationResults | null): OptimizationDetail {
  return { ...toOptimizationSummary(r), results: r.status === 'completed' ? results : null };
}

export function toTrialView(t: OptimizationTrialView): OptimizationTrial {
  return {
    index: t.index,
    fold: t.fold,
    params: t.params,
    status: t.status,
    objective: t.objective,
    feasible: t.feasible,
    metrics: t.metrics,
    error: t.error,
    computeMs: Math.ceil(t.cpuMs),
  };
}

/** Data of an event on `optimization:<id>:progress`. */
export function toOptimizationProgressEvent(r: OptimizationRecord): OptimizationProgressEvent {
  return {
    optimizationId: r.id,
    status: r.status,
    progress: r.progress,
    trialsDone: r.trialsDone,
    trialsTotal: r.trialsTotal,
    best: r.best ? { index: r.best.index, params: r.best.params, objective: r.best.objective } : null,
  };
}
