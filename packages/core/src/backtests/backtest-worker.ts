import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import type { MarketData, TimeframeName } from '../ports/market-data.js';
import type { BacktestLogRecord, BacktestRecord, Store, StoreRepositories } from '../ports/store.js';
import { pickStrategyRunner, type StrategyRunnerDep } from './strategy-runner-dep.js';
import { BACKTEST_JOB } from './backtest-service.js';
import { loadRunnableSource } from '../marketplace/licences.js';
import { toProgressEvent } from './backtest-views.js';
import { tradesToStore } from './stored-trades.js';
import { runSeed } from './run-seed.js';
import { cpuMsOf, runErrorFor } from './run-errors.js';
import { loadBacktestCandles } from './load-backtest-candles.js';
import { processedOf, tradedBars } from './run-bars.js';
import { loadBacktestFunding } from './load-backtest-funding.js';
import { logLinesOf, toBacktestLogRecords } from './backtest-logs.js';
import { recordBacktestEnd } from '../notifications/run-events.js';

export type BacktestWorkerDeps = StrategyRunnerDep & {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  queue: JobQueue;
  marketData: MarketData;
  /** Backtests run at once by this process (default 2). */
  concurrency?: number;
  /** Least time between two progress events of one run (default 250 ms). */
  progressIntervalMs?: number;
  /** Most trades a run stores, the first by entry (default `DEFAULT_MAX_BACKTEST_TRADES`); metrics cover all. */
  maxStoredTrades?: number;
  /**
   * Meters the CPU milliseconds a run used, however it ended (completed, failed, timed out,
   * cancelled or interrupted). Called inside the transaction that records the run's end
   * (`repos`), so a run is metered exactly once even if the process dies at any point.
   */
  onCompute?: (userId: string, computeMs: number, repos: StoreRepositories) => Promise<void>;
  /** Backtests of one user run at once by this process (default 1): users take turns. */
  perUserConcurrency?: number;
  /**
   * What `start()` does about backtests left `queued` or `running` (see `BacktestRecovery`).
   * Default: `resubmit` when the queue is shared by several nodes (`queue.shared`), else `restart`.
   */
  recovery?: BacktestRecovery;
};

/**
 * Start-up recovery of backtests a stop interrupted:
 * - `restart` (one node, in-process queue): every `running` run is this process's own dead run:
 *   re-queue it (or fail it after too many attempts) and re-add every `queued` one;
 * - `resubmit` (several nodes, shared queue): a `running` run may belong to a live worker on
 *   another node, so only re-add the jobs (the queue ignores those it already holds); a run
 *   whose worker died is handed out again by the queue's own stalled-job detection, and its
 *   handler takes it over (`job.redelivered`);
 * - `none`: nothing.
 */
export type BacktestRecovery = 'restart' | 'resubmit' | 'none';

/** A run interrupted by a crash is tried this many times in all before it is failed. */
const MAX_ATTEMPTS = 2;

/**
 * Takes backtest jobs from the queue and runs them: candles (and funding rates, for LINEAR runs
 * that pay funding) from market data, the strategy in the sandbox, results and state into the
 * Store, progress onto the event bus. Every state
 * change is a compare-and-set in the Store, so a cancelled run never turns completed and a
 * job delivered twice runs once.
 */
export function createBacktestWorker(deps: BacktestWorkerDeps) {
  const { store, clock, logger, events, queue, marketData } = deps;
  const runner = pickStrategyRunner(deps, 'createBacktestWorker');
  const interval = deps.progressIntervalMs ?? 250;

  /**
   * Moves a run from one of `from` to its end state, writes what it leaves (`keep`: results, log
   * lines) and meters its compute in one transaction: only the call that makes the move writes
   * and meters, so a run is never metered twice, and a crash leaves either the end state with all
   * it keeps or none of it. The move's notification (`backtest.completed` with `metrics`, or
   * `backtest.failed`) is written in the same transaction.
   */
  async function finish(
    record: BacktestRecord,
    from: BacktestRecord['status'][],
    patch: Parameters<Store['backtests']['transition']>[2],
    computeMs: number,
    keep?: (tx: StoreRepositories) => Promise<void>,
    metrics: Record<string, unknown> | null = null,
  ) {
    const metered = Math.ceil(computeMs);
    const done = await store.transaction(async (tx) => {
      const moved = await tx.backtests.transition(record.id, from, { ...patch, computeMs: record.computeMs + metered });
      if (moved) await keep?.(tx);
      if (moved && metered > 0) await deps.onCompute?.(record.userId, metered, tx);
      if (moved) await recordBacktestEnd(tx, moved, metrics);
      return moved;
    });
    if (done) events.publish(`backtest:${record.id}:progress`, toProgressEvent(done));
    return done;
  }

  /**
   * A run stopped by its signal: cancelled by its user (the record says so: meter it there and
   * keep the log lines the run handed back), or this process is shutting down or lost the job
   * (the record stays running for whoever runs it next, who writes its log: meter the CPU this
   * attempt used on its own).
   */
  async function meterStopped(record: BacktestRecord, computeMs: number, logs: readonly BacktestLogRecord[] = []) {
    const metered = Math.ceil(computeMs);
    if (metered <= 0 && logs.length === 0) return;
    await store.transaction(async (tx) => {
      const cancelled = await tx.backtests.transition(record.id, ['cancelled'], metered > 0 ? { computeMs: record.computeMs + metered } : {});
      if (cancelled) {
        if (logs.length > 0) await tx.backtests.saveLogs(record.id, logs);
      } else {
        if (metered <= 0) return;
        const current = await tx.backtests.transition(record.id, ['running'], { computeMs: record.computeMs + metered });
        if (!current) return;
      }
      if (metered > 0) await deps.onCompute?.(record.userId, metered, tx);
    });
  }

  /** Fails a running run a crash interrupted too often, with its `backtest.failed` event in the same transaction. */
  async function giveUp(r: BacktestRecord): Promise<void> {
    const failed = await store.transaction(async (tx) => {
      const moved = await tx.backtests.transition(r.id, ['running'], {
        status: 'failed',
        error: { code: 'INTERRUPTED', message: `The run was interrupted ${r.attempts} times (server restart or crash); giving up` },
        finishedAt: clock.now().toISOString(),
      });
      if (moved) await recordBacktestEnd(tx, moved, null);
      return moved;
    });
    if (failed) events.publish(`backtest:${r.id}:progress`, toProgressEvent(failed));
  }

  /**
   * A run left `running` by a stop: null if it is given up (failed with a reason) or no longer
   * running, else the record, still `running`, to run again.
   */
  async function resume(id: string, r: BacktestRecord): Promise<BacktestRecord | null> {
    if (r.attempts >= MAX_ATTEMPTS) {
      await giveUp(r);
      return null;
    }
    return store.backtests.transition(id, ['running'], { progress: 0, processedBars: 0, startedAt: clock.now().toISOString() });
  }

  async function run(job: Job, signal: AbortSignal): Promise<void> {
    let started = await store.backtests.transition(job.id, ['queued'], { status: 'running', startedAt: clock.now().toISOString() });
    if (!started && job.redelivered) {
      // the worker that ran it died or stopped: the queue handed it to us, take it over
      const current = await store.backtests.transition(job.id, ['running'], { status: 'running' });
      if (current) started = await resume(job.id, current);
    }
    if (!started) return; // cancelled, finished, or another worker took it
    const record = (await store.backtests.transition(job.id, ['running'], { attempts: started.attempts + 1 })) ?? started;
    // the run's first progress event waits for its candles: it carries the total every later event carries
    let ownsSource = false;
    /** The strategy's log lines as the backtest keeps them: none for a bought strategy (run-only licence). */
    const keptLogs = (lines: Parameters<typeof toBacktestLogRecords>[0]) => (ownsSource ? toBacktestLogRecords(lines) : []);
    try {
      const version = await loadRunnableSource(store, record.userId, record.strategyId, record.strategyVersion).catch(() => null);
      if (!version)
        throw Object.assign(new Error(`Strategy ${record.strategyId} version ${record.strategyVersion} no longer exists`), { code: 'STRATEGY_DELETED' });
      ownsSource = version.userId === record.userId;
      const info = await runner.inspect(version.source, { tenant: record.userId });
      const {
        series,
        source: dataSource,
        startTime,
      } = await loadBacktestCandles(marketData, {
        symbols: record.symbols,
        timeframe: record.timeframe as TimeframeName,
        startDate: record.startDate,
        endDate: record.endDate,
        warmup: info.warmup ?? 0,
      });
      // the bars traded (warm-up candles aside), as the engine counts them: fixed from the first event to the last
      const totalBars = tradedBars(series, startTime);
      if (series.every((s) => s.length === 0 || s.time[s.length - 1]! < startTime)) {
        throw Object.assign(new Error('No candles in the requested range'), { code: 'DATA_NOT_FOUND' });
      }
      // Funding (LINEAR only; the service stores funding: false for SPOT): a symbol without rates runs without funding.
      const funding =
        record.funding && record.marketType === 'LINEAR'
          ? await loadBacktestFunding(marketData, { symbols: record.symbols, startDate: record.startDate, endDate: record.endDate })
          : null;
      if (funding && funding.missing.length > 0) {
        logger.info('Backtest runs without funding for symbols with no funding rates', { backtestId: record.id, symbols: funding.missing });
      }
      const counted = await store.backtests.transition(record.id, ['running'], {
        dataSource,
        fundingSource: funding?.source ?? null,
        progress: 0,
        processedBars: 0,
        totalBars,
      });
      if (counted) events.publish(`backtest:${record.id}:progress`, toProgressEvent(counted));
      signal.throwIfAborted();

      let lastPublished = 0;
      const output = await runner.run(
        {
          source: version.source,
          series,
          startTime,
          fees: record.fees,
          leverage: record.leverage,
          slippage: record.slippage,
          initialCapital: record.initialCapital,
          params: record.params,
          marketType: record.marketType,
          seed: runSeed(record),
          ...(funding && funding.source !== null ? { funding: funding.funding } : {}),
        },
        {
          signal,
          tenant: record.userId,
          onProgress: (engineProcessed, engineTotal) => {
            const now = Date.now();
            if (now - lastPublished < interval) return;
            lastPublished = now;
            const processedBars = processedOf(engineProcessed, engineTotal, totalBars);
            const progress = totalBars > 0 ? Math.min(0.99, processedBars / totalBars) : 0;
            void store.backtests.transition(record.id, ['running'], { progress, processedBars, totalBars }).then(
              (updated) => {
                if (updated) events.publish(`backtest:${record.id}:progress`, toProgressEvent(updated));
              },
              () => undefined,
            );
          },
        },
      );
      const result = {
        backtestId: record.id,
        equityCurve: output.equityCurve,
        metrics: output.metrics,
        ...tradesToStore(output.trades, deps.maxStoredTrades),
      };
      const logs = keptLogs(output.logs);
      const done = await finish(
        record,
        ['running'],
        { status: 'completed', progress: 1, processedBars: totalBars, totalBars, finishedAt: clock.now().toISOString() },
        output.computeMs,
        async (tx) => {
          await tx.backtests.saveResult(result);
          await tx.backtests.saveLogs(record.id, logs);
        },
        output.metrics as unknown as Record<string, unknown>,
      );
      if (!done) await meterStopped(record, output.computeMs, logs); // cancelled as it completed
    } catch (error) {
      if (signal.aborted) {
        // cancelled (the service published the final state) or shutting down: meter what it used
        await meterStopped(record, cpuMsOf(error), keptLogs(logLinesOf(error))).catch((e: unknown) =>
          logger.error('Could not meter a stopped backtest', { backtestId: record.id, error: String(e) }),
        );
        return;
      }
      const failure = runErrorFor(error, ownsSource);
      if (failure.code === 'INTERNAL') logger.error('backtest failed', { backtestId: record.id, error: String(error) });
      const logs = keptLogs(logLinesOf(error));
      const failed = await finish(record, ['running'], { status: 'failed', error: failure, finishedAt: clock.now().toISOString() }, cpuMsOf(error), (tx) =>
        tx.backtests.saveLogs(record.id, logs),
      );
      if (!failed) await meterStopped(record, cpuMsOf(error), logs); // cancelled as it failed
    }
  }

  return {
    /**
     * Recovers backtests a stop interrupted (see `BacktestRecovery`: with `restart`, re-queues
     * the waiting ones, retries runs a crash interrupted (once) and fails the rest with a
     * reason), then starts taking jobs.
     */
    async start(): Promise<void> {
      const recovery = deps.recovery ?? (queue.shared ? 'resubmit' : 'restart');
      const interrupted = recovery === 'none' ? [] : await store.backtests.listByStatus(['queued', 'running'], 10_000);
      for (const r of interrupted) {
        if (recovery === 'resubmit') {
          // the queue adds only the jobs it does not hold (e.g. lost between insert and enqueue)
          await queue.enqueue({ name: BACKTEST_JOB, id: r.id, group: r.userId, payload: {}, ...(r.status === 'running' ? { redelivered: true } : {}) });
          continue;
        }
        if (r.status === 'running') {
          if (r.attempts >= MAX_ATTEMPTS) {
            await giveUp(r);
            continue;
          }
          if (!(await store.backtests.transition(r.id, ['running'], { status: 'queued', progress: 0, processedBars: 0 }))) continue;
        }
        await queue.enqueue({ name: BACKTEST_JOB, id: r.id, group: r.userId, payload: {} });
      }
      queue.process(BACKTEST_JOB, run, { concurrency: deps.concurrency ?? 2, perGroup: deps.perUserConcurrency ?? 1 });
    },
  };
}
