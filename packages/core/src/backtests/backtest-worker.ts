import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import type { MarketData, TimeframeName } from '../ports/market-data.js';
import type { BacktestLogRecord, BacktestPatch, BacktestRecord, Store, StoreRepositories } from '../ports/store.js';
import { pickStrategyRunner, type StrategyRunnerDep } from './strategy-runner-dep.js';
import { BACKTEST_JOB } from './backtest-service.js';
import { toProgressEvent } from './backtest-views.js';
import { tradesToStore } from './stored-trades.js';
import { runSeed } from './run-seed.js';
import { cpuMsOf, runErrorFor } from '../runs/run-errors.js';
import { loadBacktestCandles } from './load-backtest-candles.js';
import { processedOf, tradedBars } from './run-bars.js';
import { loadBacktestFunding } from './load-backtest-funding.js';
import { logLinesOf, toBacktestLogRecords } from './backtest-logs.js';
import { recordBacktestEnd } from '../notifications/run-events.js';
import { createRunLifecycle, interruptedMessage, type RunRecovery } from '../runs/run-lifecycle.js';
import { assertCandlesFrom, loadRunStrategy } from '../runs/run-inputs.js';

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

/** Start-up recovery of backtests a stop interrupted (see `RunRecovery`). */
export type BacktestRecovery = RunRecovery;

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

  const lifecycle = createRunLifecycle({
    records: store.backtests,
    queue,
    clock,
    jobName: BACKTEST_JOB,
    maxAttempts: MAX_ATTEMPTS,
    // a run taken over from a dead worker runs again from its first candle
    restartPatch: { progress: 0, processedBars: 0 } satisfies BacktestPatch,
    giveUp: async (r: BacktestRecord) => {
      const error = { code: 'INTERRUPTED', message: interruptedMessage(r.attempts) };
      await finish(r, ['running'], { status: 'failed', error, finishedAt: clock.now().toISOString() }, 0);
    },
  });

  async function run(job: Job, signal: AbortSignal): Promise<void> {
    const record = await lifecycle.take(job);
    if (!record) return; // cancelled, finished, given up, or another worker took it
    // the run's first progress event waits for its candles: it carries the total every later event carries
    let ownsSource = false;
    /** The strategy's log lines as the backtest keeps them: none for a bought strategy (run-only licence). */
    const keptLogs = (lines: Parameters<typeof toBacktestLogRecords>[0]) => (ownsSource ? toBacktestLogRecords(lines) : []);
    try {
      const strategy = await loadRunStrategy(store, runner, record);
      ownsSource = strategy.ownsSource;
      const { info } = strategy;
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
      assertCandlesFrom(series, startTime);
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
          source: strategy.source,
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
      await lifecycle.recover(deps.recovery ?? (queue.shared ? 'resubmit' : 'restart'));
      queue.process(BACKTEST_JOB, run, { concurrency: deps.concurrency ?? 2, perGroup: deps.perUserConcurrency ?? 1 });
    },
  };
}
