import { StratboxError } from '../errors/stratbox-error.js';
import { loadRunnableSource } from '../marketplace/licences.js';
import { BACKTEST_JOB } from '../backtests/backtest-service.js';
import { loadBacktestCandles } from '../backtests/load-backtest-candles.js';
import { loadBacktestFunding } from '../backtests/load-backtest-funding.js';
import { newBacktestRecord } from '../backtests/new-backtest-record.js';
import { cpuMsOf, runErrorFor } from '../backtests/run-errors.js';
import { runSeed } from '../backtests/run-seed.js';
import { pickStrategyRunner, type StrategyRunnerDep } from '../backtests/strategy-runner-dep.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import { TIMEFRAME_MS, type MarketData, type TimeframeName } from '../ports/market-data.js';
import type { Store, StoreRepositories } from '../ports/store.js';
import type { OptimizationBestRecord, OptimizationPatch, OptimizationRecord, OptimizationTrialRecord } from '../ports/store-optimizations.js';
import type { TrialRunOutcome, TrialsRunInput } from '../ports/strategy-runner.js';
import type { TimeWindow } from '../backtests/engine/time-window.js';
import { bestTrial, isFeasible, objectiveOf } from '../research/trial-score.js';
import type { OptimizationObjective } from '@stratbox/contract';
import { periodGrid } from '../backtests/engine/period-returns.js';
import type { ParamSpec } from '../sandbox/strategy-meta.js';
import { OPTIMIZATION_JOB } from './optimization-service.js';
import { type OptimizationPlan, planOptimization, trialParams } from './optimization-plan.js';
import { buildOptimizationResults, type FoldTest, withoutPerSymbol } from './optimization-results.js';
import { optimizationProgressChannel, toOptimizationProgressEvent } from './optimization-views.js';
import { FIRST_SLICE, nextSliceCount, nextSliceSize } from './slice-size.js';
import { recordOptimizationEnd } from '../notifications/run-events.js';

export type OptimizationWorkerDeps = StrategyRunnerDep & {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  queue: JobQueue;
  marketData: MarketData;
  /** Optimizations run at once by this process (default 2, one per user at a time): users take turns. */
  concurrency?: number;
  /** Slices of one optimization's trials run at once (default 2): more use more sandbox children, as the pool's per-user cap allows. */
  parallelSlices?: number;
  /** CPU time a slice of trials aims at (default 1,000 ms): a slice holds its sandbox child until its last trial. */
  sliceMs?: number;
  /**
   * Meters CPU milliseconds, inside the transaction that records what used them (`repos`): a
   * slice's new trials, or the end of the optimization (its out-of-sample tests), so each is
   * metered exactly once even if the process dies at any point.
   */
  onCompute?: (userId: string, computeMs: number, repos: StoreRepositories) => Promise<void>;
  /** Throws (402 PLAN_LIMIT_EXCEEDED) when the user has no compute left: checked between slices. */
  assertComputeLeft?: (userId: string) => Promise<void>;
  /** What `start()` does about optimizations a stop left queued or running (as for backtests). */
  recovery?: 'restart' | 'resubmit' | 'none';
};

/** An optimization a crash or stop interrupted this many times is failed. */
const MAX_ATTEMPTS = 3;

/** A run of an optimization (one job delivery): what it loaded and what it knows so far. */
interface Run {
  record: OptimizationRecord;
  signal: AbortSignal;
  plan: OptimizationPlan;
  input: Omit<TrialsRunInput, 'window' | 'periodMs'>;
  /** The user runs their own strategy (not a bought one): its errors may be quoted. */
  ownsSource: boolean;
  warmup: number;
  timeframeMs: number;
  /** Stored trials by index, this delivery's and earlier ones'. */
  trials: Map<number, OptimizationTrialRecord>;
  /** Commits of slices, one after the other (a record's computeMs is read and written in each). */
  commits: Promise<unknown>;
  /** CPU ms of work not stored as trials (out-of-sample tests), metered when the optimization ends. */
  pendingMs: number;
}

/**
 * Takes optimization jobs from the queue and runs them: the candles loaded once, the trials in
 * slices of about `sliceMs` of CPU through the strategy runner's `runTrials` (users take turns
 * for the sandbox between slices), each slice's trials stored, counted and metered in one
 * transaction; with validation, each fold's winner tested out of sample; at the end the results
 * and a full backtest of the best parameters. A job delivered again (a crash, a stop) skips the
 * trials already stored: none is lost or counted twice.
 */
export function createOptimizationWorker(deps: OptimizationWorkerDeps) {
  const { store, clock, logger, events, queue, marketData } = deps;
  const runner = pickStrategyRunner(deps, 'createOptimizationWorker');
  const parallel = Math.max(1, deps.parallelSlices ?? 2);
  const sliceMs = Math.max(10, deps.sliceMs ?? 1_000);

  const publish = (r: OptimizationRecord) => events.publish(optimizationProgressChannel(r.id), toOptimizationProgressEvent(r));

  /**
   * Moves a running optimization to its end (`patch`), meters the CPU not metered yet
   * (`pendingMs`) and writes what it leaves (`keep`), in one transaction: only the call that makes
   * the move writes and meters, so an end is metered once, and a crash leaves all of it or none.
   * Its notification (`optimization.completed` or `.failed`) is written in the same transaction.
   * Publishes the end; answers the record after, or null when it was no longer running.
   */
  async function finish(
    id: string,
    userId: string,
    patch: OptimizationPatch,
    pendingMs: number,
    keep?: (tx: StoreRepositories) => Promise<void>,
  ): Promise<OptimizationRecord | null> {
    const metered = Math.ceil(pendingMs);
    const done = await store.transaction(async (tx) => {
      const current = await tx.optimizations.findById(userId, id);
      const moved = await tx.optimizations.transition(id, ['running'], { ...patch, computeMs: (current?.computeMs ?? 0) + metered });
      if (!moved) return null;
      await keep?.(tx);
      if (metered > 0) await deps.onCompute?.(userId, metered, tx);
      await recordOptimizationEnd(tx, moved);
      return moved;
    });
    if (done) publish(done);
    return done;
  }

  const fail = (id: string, error: { code: string; message: string }, pendingMs: number, userId: string) =>
    finish(id, userId, { status: 'failed', error, finishedAt: clock.now().toISOString() }, pendingMs);

  /** Meters `ms` on a stopped optimization (cancelled, or still running for whoever takes it next). */
  async function meterStopped(r: OptimizationRecord, ms: number) {
    const metered = Math.ceil(ms);
    if (metered <= 0) return;
    await store.transaction(async (tx) => {
      const current = await tx.optimizations.findById(r.userId, r.id);
      if (!current || !['running', 'cancelled'].includes(current.status)) return;
      const moved = await tx.optimizations.transition(r.id, [current.status], { computeMs: current.computeMs + metered });
      if (moved) await deps.onCompute?.(r.userId, metered, tx);
    });
  }

  /** Takes the job: queued to running, or (redelivered) a running one left by a dead worker. */
  async function take(job: Job): Promise<OptimizationRecord | null> {
    let started = await store.optimizations.transition(job.id, ['queued'], { status: 'running', startedAt: clock.now().toISOString() });
    if (!started && job.redelivered) started = await store.optimizations.transition(job.id, ['running'], {});
    if (!started) return null;
    if (started.attempts >= MAX_ATTEMPTS) {
      const message = `The optimization was interrupted ${started.attempts} times (server restart or crash); giving up. Its ${started.trialsDone} trials are kept.`;
      await fail(started.id, { code: 'INTERRUPTED', message }, 0, started.userId);
      return null;
    }
    return store.optimizations.transition(job.id, ['running'], { attempts: started.attempts + 1 });
  }

  function windowInput(run: Run, window: TimeWindow): TrialsRunInput {
    return { ...run.input, window: { ...window, warmup: run.warmup }, periodMs: periodGrid(window, run.timeframeMs).periodMs };
  }

  function toTrialRecord(run: Run, index: number, fold: number | null, params: Record<string, string>, outcome: TrialRunOutcome): OptimizationTrialRecord {
    const { spec } = run.record;
    if (!outcome.ok) {
      const error = runErrorFor(Object.assign(new Error(outcome.error.message), { code: outcome.error.code }), run.ownsSource);
      return {
        optimizationId: run.record.id,
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
      optimizationId: run.record.id,
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

  /** The best stored trial of a fold (null without validation: all trials), as the record keeps it. */
  function bestOf(run: Run, fold: number | null, backtestId: string | null = null): OptimizationBestRecord | null {
    const best = bestTrial([...run.trials.values()].filter((t) => t.fold === fold));
    if (!best || best.objective === null || !best.metrics) return null;
    return { index: best.index, fold: best.fold, params: best.params, objective: best.objective, metrics: best.metrics, backtestId };
  }

  /** Stores a slice's trials, counts and meters the new ones, and moves progress and best on: one transaction. */
  function commitSlice(run: Run, fold: number | null, records: OptimizationTrialRecord[]): Promise<OptimizationRecord | null> {
    const commit = run.commits.then(async () => {
      for (const t of records) if (!run.trials.has(t.index)) run.trials.set(t.index, t);
      const best = bestOf(run, fold);
      const { id, userId } = run.record;
      const moved = await store.transaction(async (tx) => {
        const fresh = new Set(await tx.optimizations.saveTrials(records));
        const metered = records.reduce((sum, t) => sum + (fresh.has(t.index) ? Math.ceil(t.cpuMs) : 0), 0);
        const trialsDone = await tx.optimizations.countTrials(id);
        const current = await tx.optimizations.findById(userId, id);
        if (!current) return null;
        const patch: OptimizationPatch = { trialsDone, computeMs: current.computeMs + metered };
        if (current.status === 'running') Object.assign(patch, { best, progress: Math.min(0.99, trialsDone / Math.max(1, current.trialsTotal)) });
        const after = await tx.optimizations.transition(id, [current.status], patch);
        if (after && metered > 0) await deps.onCompute?.(userId, metered, tx);
        return after;
      });
      if (moved?.status === 'running') publish(moved);
      return moved;
    });
    run.commits = commit.catch(() => undefined);
    return commit;
  }

  /** Runs the trials of one fold (or of the whole range) not stored yet, in slices, `parallel` at a time. */
  async function searchFold(run: Run, fold: number | null, window: TimeWindow): Promise<void> {
    const perFold = run.plan.points.length;
    const first = (fold ?? 0) * perFold;
    const todo: number[] = [];
    for (let i = first; i < first + perFold; i++) if (!run.trials.has(i)) todo.push(i);
    const input = windowInput(run, window);
    const { spec } = run.record;
    let size = FIRST_SLICE;
    let failure: unknown = null;
    const running = new Set<Promise<void>>();

    const launch = () => {
      const indexes = todo.splice(0, nextSliceCount(todo.length, size, parallel));
      const params = indexes.map((i) => trialParams(spec, run.plan.points[i - first]!));
      const requests = params.map((p) => ({ params: p, seed: runSeed({ ...run.record, ...spec, params: p }) }));
      const slice = (async () => {
        const outcomes = await runner.runTrials(input, requests, { signal: run.signal, tenant: run.record.userId });
        const records = outcomes.map((o, k) => toTrialRecord(run, indexes[k]!, fold, params[k]!, o));
        size = nextSliceSize(
          records.map((t) => t.cpuMs),
          sliceMs,
        );
        const after = await commitSlice(run, fold, records);
        if (after?.status !== 'running') throw new StratboxError('CONFLICT', 'The optimization is no longer running');
        await deps.assertComputeLeft?.(run.record.userId);
      })();
      const tracked: Promise<void> = slice
        .catch((error: unknown) => {
          run.pendingMs += cpuMsOf(error); // a slice that failed or was stopped: its CPU is metered when the optimization ends
          failure ??= error;
        })
        .finally(() => running.delete(tracked));
      running.add(tracked);
    };

    while ((todo.length > 0 && failure === null) || running.size > 0) {
      while (todo.length > 0 && failure === null && running.size < parallel) launch();
      await Promise.race(running);
    }
    if (failure !== null) throw failure;
  }

  /** Tests a fold's winner out of sample: one trial over the out-of-sample window. */
  async function testFold(run: Run, fold: number, outOfSample: TimeWindow): Promise<FoldTest> {
    const best = bestOf(run, fold);
    if (!best) return { fold, winner: null, outcome: null };
    const input = windowInput(run, outOfSample);
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

  async function loadRun(record: OptimizationRecord, signal: AbortSignal): Promise<Run> {
    const { spec } = record;
    const version = await loadRunnableSource(store, record.userId, record.strategyId, record.strategyVersion).catch(() => null);
    if (!version)
      throw Object.assign(new Error(`Strategy ${record.strategyId} version ${record.strategyVersion} no longer exists`), { code: 'STRATEGY_DELETED' });
    const ownsSource = version.userId === record.userId;
    const info = await runner.inspect(version.source, { tenant: record.userId });
    const timeframe = spec.timeframe as TimeframeName;
    const plan = planOptimization(spec, info.params as Record<string, ParamSpec> | undefined, TIMEFRAME_MS[timeframe]);
    const { series } = await loadBacktestCandles(marketData, {
      symbols: spec.symbols,
      timeframe,
      startDate: spec.startDate,
      endDate: spec.endDate,
      warmup: info.warmup ?? 0,
    });
    if (series.every((s) => s.length === 0 || s.time[s.length - 1]! < plan.range.start)) {
      throw Object.assign(new Error('No candles in the requested range'), { code: 'DATA_NOT_FOUND' });
    }
    const funding = spec.funding ? await loadBacktestFunding(marketData, { symbols: spec.symbols, startDate: spec.startDate, endDate: spec.endDate }) : null;
    const stored = await store.optimizations.listAllTrials(record.id);
    return {
      record,
      signal,
      plan,
      input: {
        source: version.source,
        series,
        fees: spec.fees,
        leverage: spec.leverage,
        slippage: spec.slippage,
        initialCapital: spec.initialCapital,
        marketType: spec.marketType,
        ...(funding && funding.source !== null ? { funding: funding.funding } : {}),
      },
      ownsSource,
      warmup: Math.max(0, (info.warmup ?? 0) - 1),
      timeframeMs: TIMEFRAME_MS[timeframe],
      trials: new Map(stored.map((t) => [t.index, t])),
      commits: Promise.resolve(),
      pendingMs: 0,
    };
  }

  /** Results, the best's full backtest, completed: one transaction; then the backtest is queued. */
  async function complete(run: Run, tests: FoldTest[]): Promise<void> {
    const { record, plan } = run;
    const lastFold = plan.folds.length === 0 ? null : plan.folds.length - 1;
    const finalTrials = [...run.trials.values()].filter((t) => t.fold === lastFold);
    const best = bestOf(run, lastFold);
    const results = await buildOptimizationResults({ spec: record.spec, plan, trials: finalTrials, best, tests, timeframeMs: run.timeframeMs }, run.signal);
    const now = clock.now().toISOString();
    const backtest = best
      ? newBacktestRecord(
          {
            ...record.spec,
            userId: record.userId,
            strategyId: record.strategyId,
            strategyVersion: record.strategyVersion,
            totalBars: run.input.series.reduce((n, s) => n + s.length, 0),
            params: best.params,
          },
          now,
        )
      : null;
    const done = await finish(
      record.id,
      record.userId,
      { status: 'completed', progress: 1, finishedAt: now, best: best ? { ...best, backtestId: backtest?.id ?? null } : null },
      run.pendingMs,
      async (tx) => {
        await tx.optimizations.saveResult(record.id, results);
        if (backtest) await tx.backtests.insert(backtest);
      },
    );
    if (!done) {
      await meterStopped(record, run.pendingMs);
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

  async function run(job: Job, signal: AbortSignal): Promise<void> {
    const record = await take(job);
    if (!record) return;
    publish(record);
    let current: Run | null = null;
    try {
      current = await loadRun(record, signal);
      const { plan } = current;
      const tests: FoldTest[] = [];
      if (plan.folds.length === 0) await searchFold(current, null, plan.range);
      for (const [f, fold] of plan.folds.entries()) {
        await searchFold(current, f, fold.inSample);
        tests.push(await testFold(current, f, fold.outOfSample));
      }
      signal.throwIfAborted();
      await complete(current, tests);
    } catch (error) {
      // The CPU of slices and tests that failed or stopped is in pendingMs already; nothing ran before the run was loaded.
      const pending = current?.pendingMs ?? 0;
      if (signal.aborted) {
        // cancelled (the service published the final state) or shutting down (it stays running for the next worker)
        await meterStopped(record, pending).catch((e: unknown) =>
          logger.error('Could not meter a stopped optimization', { optimizationId: record.id, error: String(e) }),
        );
        return;
      }
      const latest = await store.optimizations.findById(record.userId, record.id);
      if (latest && latest.status !== 'running') {
        await meterStopped(record, pending);
        return; // cancelled meanwhile
      }
      const failure = runErrorFor(error, current?.ownsSource ?? false);
      if (failure.code === 'INTERNAL') logger.error('optimization failed', { optimizationId: record.id, error: String(error) });
      await fail(record.id, failure, pending, record.userId);
    }
  }

  return {
    /** Recovers optimizations a stop interrupted (as backtests: re-queued, their stored trials kept), then starts taking jobs. */
    async start(): Promise<void> {
      const recovery = deps.recovery ?? (queue.shared ? 'resubmit' : 'restart');
      const interrupted = recovery === 'none' ? [] : await store.optimizations.listByStatus(['queued', 'running'], 10_000);
      for (const r of interrupted) {
        await queue.enqueue({ name: OPTIMIZATION_JOB, id: r.id, group: r.userId, payload: {}, ...(r.status === 'running' ? { redelivered: true } : {}) });
      }
      queue.process(OPTIMIZATION_JOB, run, { concurrency: deps.concurrency ?? 2, perGroup: 1 });
    },
  };
}
