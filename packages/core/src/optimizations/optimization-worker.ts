import { BACKTEST_JOB } from '../backtests/backtest-service.js';
import { newBacktestRecord } from '../backtests/new-backtest-record.js';
import { cpuMsOf, runErrorFor } from '../runs/run-errors.js';
import { runSeed } from '../backtests/run-seed.js';
import { pickStrategyRunner, type StrategyRunnerDep } from '../backtests/strategy-runner-dep.js';
import type { TimeWindow } from '../backtests/engine/time-window.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import type { MarketData } from '../ports/market-data.js';
import type { Store, StoreRepositories } from '../ports/store.js';
import type { OptimizationRecord, OptimizationTrialRecord } from '../ports/store-optimizations.js';
import { OPTIMIZATION_JOB } from './optimization-service.js';
import { createFoldSearch } from './optimization-fold-search.js';
import { createOptimizationLedger } from './optimization-ledger.js';
import { buildOptimizationResults, type FoldTest } from './optimization-results.js';
import { createRunInputsCache, loadRunInputs, type RunInputs, windowInput } from './optimization-run-inputs.js';
import { createSliceHandler } from './optimization-slice-handler.js';
import { OPTIMIZATION_SLICE_JOB } from './optimization-slice-job.js';
import { bestOfTrials } from './optimization-trial-record.js';
import { createRunLifecycle, type RunRecovery } from '../runs/run-lifecycle.js';

export type OptimizationWorkerDeps = StrategyRunnerDep & {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  queue: JobQueue;
  marketData: MarketData;
  /** Optimizations this process coordinates at once (default 2, one per user at a time): users take turns. */
  concurrency?: number;
  /**
   * Slices of one optimization's trials this process runs at once (default 2): more use more
   * sandbox children, as the pool's per-user cap allows. This process runs up to
   * `concurrency × parallelSlices` slices of any optimizations, `parallelSlices` of one user's.
   */
  parallelSlices?: number;
  /**
   * Slices of one optimization enqueued and not stored yet, at most (default `parallelSlices`
   * with an in-process queue; 4 × `parallelSlices` with a shared one, so that several nodes get work).
   */
  slicesInFlight?: number;
  /** CPU time a slice of trials aims at (default 1,000 ms): a slice holds its sandbox child until its last trial. */
  sliceMs?: number;
  /** How often a coordinator reads the Store while its slices run, at least (default 1,000 ms; a stored slice's progress event wakes it sooner). */
  slicePollMs?: number;
  /**
   * Meters CPU milliseconds, inside the transaction that records what used them (`repos`): a
   * slice's new trials, or the end of the optimization (its out-of-sample tests), so each is
   * metered exactly once even if the process dies at any point.
   */
  onCompute?: (userId: string, computeMs: number, repos: StoreRepositories) => Promise<void>;
  /** Throws (402 PLAN_LIMIT_EXCEEDED) when the user has no compute left: checked after each slice. */
  assertComputeLeft?: (userId: string) => Promise<void>;
  /** What `start()` does about optimizations a stop left queued or running (see `RunRecovery`). */
  recovery?: RunRecovery;
};

/** An optimization a crash or stop interrupted this many times is failed. */
const MAX_ATTEMPTS = 3;

/** A coordinator's run of an optimization (one job delivery): what it loaded and what it knows so far. */
interface Run {
  record: OptimizationRecord;
  signal: AbortSignal;
  inputs: RunInputs;
  /** Stored trials by index, read again after each fold's search. */
  trials: Map<number, OptimizationTrialRecord>;
  /** CPU ms of work not stored as trials (out-of-sample tests), metered when the optimization ends. */
  pendingMs: number;
}

/**
 * Runs optimizations across every node that runs this worker. The optimization job
 * (`optimization`) is the coordinator: it plans, and for each fold enqueues the trials not
 * stored yet as slice jobs (`optimization.slice`, see `createFoldSearch`) that any node takes,
 * waits until the Store holds every trial of the fold, tests the fold's winner out of sample,
 * and at the end writes the results and queues a full backtest of the best parameters. A slice
 * job (`createSliceHandler`) runs its trials through the strategy runner's `runTrials` for the
 * optimization's user and stores, counts and meters them in one transaction. A job delivered
 * again (a crash, a stop) skips the trials already stored: none is lost or counted twice.
 */
export function createOptimizationWorker(deps: OptimizationWorkerDeps) {
  const { store, clock, logger, events, queue, marketData } = deps;
  const runner = pickStrategyRunner(deps, 'createOptimizationWorker');
  const concurrency = deps.concurrency ?? 2;
  const parallel = Math.max(1, deps.parallelSlices ?? 2);
  const ledger = createOptimizationLedger({ store, events, onCompute: deps.onCompute });
  const inputs = createRunInputsCache((record) => loadRunInputs({ store, runner, marketData }, record), Math.max(4, 2 * concurrency));
  const searchFold = createFoldSearch({
    store,
    queue,
    events,
    logger,
    inFlight: deps.slicesInFlight ?? (queue.shared ? 4 * parallel : parallel),
    sliceMs: Math.max(10, deps.sliceMs ?? 1_000),
    pollMs: Math.max(10, deps.slicePollMs ?? 1_000),
  });
  const runSlice = createSliceHandler({ store, clock, logger, runner, ledger, inputs, assertComputeLeft: deps.assertComputeLeft });

  const fail = (id: string, error: { code: string; message: string }, pendingMs: number) =>
    ledger.finish(id, { status: 'failed', error, finishedAt: clock.now().toISOString() }, pendingMs);

  const lifecycle = createRunLifecycle({
    records: store.optimizations,
    queue,
    clock,
    jobName: OPTIMIZATION_JOB,
    maxAttempts: MAX_ATTEMPTS,
    restartPatch: {}, // its stored trials are kept: the next run skips them
    giveUp: async (r: OptimizationRecord) => {
      const message = `The optimization was interrupted ${r.attempts} times (server restart or crash); giving up. Its ${r.trialsDone} trials are kept.`;
      await fail(r.id, { code: 'INTERRUPTED', message }, 0);
    },
  });

  async function readTrials(run: Run): Promise<void> {
    run.trials = new Map((await store.optimizations.listAllTrials(run.record.id)).map((t) => [t.index, t]));
  }

  /** Searches a fold through slice jobs, then reads its trials back. */
  async function search(run: Run, fold: number | null): Promise<void> {
    await searchFold(run.record, run.inputs.plan, new Set(run.trials.keys()), fold, run.signal);
    await readTrials(run);
  }

  /** Tests a fold's winner out of sample: one trial over the out-of-sample window. */
  async function testFold(run: Run, fold: number, outOfSample: TimeWindow): Promise<FoldTest> {
    const best = bestOfTrials(run.trials.values(), fold);
    if (!best) return { fold, winner: null, outcome: null };
    const input = windowInput(run.inputs, outOfSample);
    const seed = runSeed({ ...run.record, ...run.record.spec, params: best.params });
    const [outcome] = await runner
      .runTrials(input, [{ params: best.params, seed }], { signal: run.signal, tenant: run.record.userId })
      .catch((error: unknown) => {
        run.pendingMs += cpuMsOf(error);
        throw error;
      });
    run.pendingMs += outcome!.cpuMs;
    return { fold, winner: best, outcome: outcome!, periodMs: input.periodMs };
  }

  /** Results, the best's full backtest, completed: one transaction; then the backtest is queued. */
  async function complete(run: Run, tests: FoldTest[]): Promise<void> {
    const { record } = run;
    const { plan } = run.inputs;
    const lastFold = plan.folds.length === 0 ? null : plan.folds.length - 1;
    const finalTrials = [...run.trials.values()].filter((t) => t.fold === lastFold);
    const best = bestOfTrials(finalTrials, lastFold);
    const results = await buildOptimizationResults(
      { spec: record.spec, plan, trials: finalTrials, best, tests, timeframeMs: run.inputs.timeframeMs },
      run.signal,
    );
    const now = clock.now().toISOString();
    const backtest = best
      ? newBacktestRecord(
          {
            ...record.spec,
            userId: record.userId,
            strategyId: record.strategyId,
            strategyVersion: record.strategyVersion,
            totalBars: run.inputs.input.series.reduce((n, s) => n + s.length, 0),
            params: best.params,
          },
          now,
        )
      : null;
    const done = await ledger.finish(
      record.id,
      { status: 'completed', progress: 1, finishedAt: now, best: best ? { ...best, backtestId: backtest?.id ?? null } : null },
      run.pendingMs,
      async (tx) => {
        await tx.optimizations.saveResult(record.id, results);
        if (backtest) await tx.backtests.insert(backtest);
      },
    );
    if (!done) {
      await ledger.meterStopped(record.id, run.pendingMs);
      return;
    }
    if (backtest) {
      await queue.enqueue({ name: BACKTEST_JOB, id: backtest.id, group: record.userId, payload: {} }).catch((error: unknown) =>
        logger.error('Could not queue the best backtest of an optimization; a restart queues it', {
          optimizationId: record.id,
          backtestId: backtest.id,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }
  }

  /** The coordinator: one delivery of an optimization job. */
  async function run(job: Job, signal: AbortSignal): Promise<void> {
    const record = await lifecycle.take(job);
    if (!record) return;
    ledger.publish(record);
    let current: Run | null = null;
    let ownsSource = false;
    try {
      const loaded = await inputs.get(record);
      ownsSource = loaded.ownsSource;
      current = { record, signal, inputs: loaded, trials: new Map(), pendingMs: 0 };
      await readTrials(current);
      const { plan } = loaded;
      const tests: FoldTest[] = [];
      if (plan.folds.length === 0) await search(current, null);
      for (const [f, fold] of plan.folds.entries()) {
        await search(current, f);
        tests.push(await testFold(current, f, fold.outOfSample));
      }
      signal.throwIfAborted();
      await complete(current, tests);
      inputs.evict(record.id);
    } catch (error) {
      // The CPU of out-of-sample tests that ran or stopped is in pendingMs; slices meter their own.
      const pending = current?.pendingMs ?? 0;
      if (signal.aborted) {
        // cancelled (the service published the final state) or shutting down (it stays running for the next worker)
        await ledger
          .meterStopped(record.id, pending)
          .catch((e: unknown) => logger.error('Could not meter a stopped optimization', { optimizationId: record.id, error: String(e) }));
        return;
      }
      inputs.evict(record.id);
      const latest = await store.optimizations.findById(record.userId, record.id);
      if (latest && latest.status !== 'running') {
        await ledger.meterStopped(record.id, pending);
        return; // cancelled, or failed by a slice, meanwhile
      }
      const failure = runErrorFor(error, ownsSource);
      if (failure.code === 'INTERNAL') logger.error('optimization failed', { optimizationId: record.id, error: String(error) });
      await fail(record.id, failure, pending);
    }
  }

  return {
    /**
     * Recovers optimizations a stop interrupted (as backtests: re-queued, their stored trials
     * kept; their coordinators enqueue the slices not stored yet), then starts taking
     * optimization and slice jobs.
     */
    async start(): Promise<void> {
      await lifecycle.recover(deps.recovery ?? (queue.shared ? 'resubmit' : 'restart'));
      queue.process(OPTIMIZATION_JOB, run, { concurrency, perGroup: 1 });
      queue.process(OPTIMIZATION_SLICE_JOB, runSlice, { concurrency: Math.max(1, concurrency) * parallel, perGroup: parallel });
    },
  };
}
