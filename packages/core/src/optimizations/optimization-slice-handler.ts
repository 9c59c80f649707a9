import { cpuMsOf, runErrorFor } from '../runs/run-errors.js';
import { runSeed } from '../backtests/run-seed.js';
import type { Clock } from '../ports/clock.js';
import type { Job } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { StrategyRunner } from '../ports/strategy-runner.js';
import type { OptimizationLedger } from './optimization-ledger.js';
import { trialParams } from './optimization-plan.js';
import { type RunInputs, type RunInputsCache, windowInput } from './optimization-run-inputs.js';
import { parseSlicePayload, type SlicePayload } from './optimization-slice-job.js';
import { toTrialRecord } from './optimization-trial-record.js';

export interface SliceHandlerDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  runner: Pick<StrategyRunner, 'runTrials'>;
  ledger: OptimizationLedger;
  inputs: RunInputsCache;
  /** Throws (402 PLAN_LIMIT_EXCEEDED) when the user has no compute left: checked after each slice. */
  assertComputeLeft?: ((userId: string) => Promise<void>) | undefined;
}

/** The trials of `slice` not stored yet (a slice delivered again may find some or all of them stored). */
async function unstored(store: Store, slice: SlicePayload): Promise<number[]> {
  const first = slice.indexes[0]!;
  const last = slice.indexes[slice.indexes.length - 1]!;
  const stored = new Set((await store.optimizations.listTrialCosts(slice.optimizationId, { from: first, to: last + 1 })).map((t) => t.index));
  return slice.indexes.filter((i) => !stored.has(i));
}

/**
 * Runs slice jobs (`optimization.slice`) on whichever node takes them: the optimization's inputs
 * from this node's cache (loaded once per node), the slice's trials not stored yet through
 * `runTrials` for the optimization's user, then stored, counted and metered in one transaction
 * (only the trials this commit stored: a slice delivered again, or run beside a stalled twin,
 * counts and meters nothing twice). Skips the work when the optimization is no longer running.
 * A slice that fails fails the optimization (its coordinator sees it in the Store); one that is
 * stopped (cancelled, or this node shutting down: the queue hands it out again) meters the CPU it used.
 */
export function createSliceHandler(deps: SliceHandlerDeps) {
  const { store, clock, logger, runner, ledger, inputs } = deps;

  return async function runSlice(job: Job, signal: AbortSignal): Promise<void> {
    const slice = parseSlicePayload(job.payload);
    if (!slice) {
      logger.error('Not an optimization slice job; dropped', { jobId: job.id });
      return;
    }
    const { optimizationId: id, userId, fold } = slice;
    const record = await store.optimizations.findById(userId, id);
    if (record?.status !== 'running') {
      inputs.evict(id);
      return;
    }
    const indexes = await unstored(store, slice);
    if (indexes.length === 0) return; // delivered again after its trials were stored
    let loaded: RunInputs | null = null;
    try {
      loaded = await inputs.get(record);
      const { plan } = loaded;
      const window = fold === null ? plan.range : plan.folds[fold]?.inSample;
      const perFold = plan.points.length;
      const first = (fold ?? 0) * perFold;
      if (!window || indexes.some((i) => i < first || i >= first + perFold)) throw new Error(`Slice ${job.id} does not fit the optimization's plan`);
      const { spec } = record;
      const params = indexes.map((i) => trialParams(spec, plan.points[i - first]!));
      const requests = params.map((p) => ({ params: p, seed: runSeed({ ...record, ...spec, params: p }) }));
      const outcomes = await runner.runTrials(windowInput(loaded, window), requests, { signal, tenant: userId });
      const ownsSource = loaded.ownsSource;
      const records = outcomes.map((o, k) => toTrialRecord(record, ownsSource, indexes[k]!, fold, params[k]!, o));
      const { after, fresh } = await ledger.commitTrials(id, fold, records);
      logger.debug('Optimization slice stored', { optimizationId: id, fold, first: indexes[0], trials: records.length, stored: fresh.length });
      if (after?.status !== 'running') {
        inputs.evict(id);
        return;
      }
      await deps.assertComputeLeft?.(userId);
    } catch (error) {
      const ms = cpuMsOf(error);
      if (signal.aborted) {
        // cancelled (its trials stop here) or this node shutting down (the queue hands the slice out again)
        await ledger.meterStopped(id, ms);
        return;
      }
      const latest = await store.optimizations.findById(userId, id);
      if (latest?.status !== 'running') {
        inputs.evict(id);
        await ledger.meterStopped(id, ms);
        return;
      }
      const failure = runErrorFor(error, loaded?.ownsSource ?? false);
      if (failure.code === 'INTERNAL') logger.error('optimization slice failed', { optimizationId: id, jobId: job.id, error: String(error) });
      const failed = await ledger.finish(id, { status: 'failed', error: failure, finishedAt: clock.now().toISOString() }, ms);
      if (!failed) await ledger.meterStopped(id, ms);
      inputs.evict(id);
    }
  };
}
