import { createHash } from 'node:crypto';
import { isStratboxError } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import { TIMEFRAME_MS, type MarketData, type TimeframeName } from '../ports/market-data.js';
import type { BacktestRecord, Store } from '../ports/store.js';
import type { BacktestExecutor } from './backtest-executor.js';
import { BACKTEST_JOB } from './backtest-service.js';
import { loadRunnableSource } from '../marketplace/licences.js';
import { toProgressEvent } from './backtest-views.js';
import { tradesToStore } from './stored-trades.js';

export interface BacktestWorkerDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  queue: JobQueue;
  executor: BacktestExecutor;
  marketData: MarketData;
  /** Backtests run at once by this process (default 2). */
  concurrency?: number;
  /** Least time between two progress events of one run (default 250 ms). */
  progressIntervalMs?: number;
  /** Most trades a run stores, the first by entry (default `DEFAULT_MAX_BACKTEST_TRADES`); metrics cover all. */
  maxStoredTrades?: number;
  /** Called with the CPU milliseconds a finished run used (usage metering). */
  onCompute?: (userId: string, computeMs: number) => Promise<void>;
  /**
   * What `start()` does about backtests left `queued` or `running` (see `BacktestRecovery`).
   * Default: `resubmit` when the queue is shared by several nodes (`queue.shared`), else `restart`.
   */
  recovery?: BacktestRecovery;
}

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

/** The same configuration always gets the same seed, so a backtest can be repeated exactly. */
function seedOf(r: BacktestRecord): number {
  const digest = createHash('sha256')
    .update(JSON.stringify([r.strategyId, r.strategyVersion, r.symbols, r.startDate, r.endDate, r.timeframe, r.params]))
    .digest();
  return digest.readUInt32LE(0);
}

function runError(error: unknown): { code: string; message: string } {
  if (isStratboxError(error)) return { code: error.code === 'NOT_FOUND' ? 'DATA_NOT_FOUND' : error.code, message: error.message };
  const coded = error as { code?: unknown; message?: unknown };
  if (error instanceof Error && typeof coded.code === 'string') return { code: coded.code, message: error.message };
  return { code: 'INTERNAL', message: 'The backtest failed unexpectedly' };
}

/**
 * Takes backtest jobs from the queue and runs them: candles from market data, the strategy in
 * the sandbox, results and state into the Store, progress onto the event bus. Every state
 * change is a compare-and-set in the Store, so a cancelled run never turns completed and a
 * job delivered twice runs once.
 */
export function createBacktestWorker(deps: BacktestWorkerDeps) {
  const { store, clock, logger, events, queue, executor, marketData } = deps;
  const interval = deps.progressIntervalMs ?? 250;

  /**
   * A run left `running` by a stop: null if it is given up (failed with a reason) or no longer
   * running, else the record, still `running`, to run again.
   */
  async function resume(id: string, r: BacktestRecord): Promise<BacktestRecord | null> {
    if (r.attempts >= MAX_ATTEMPTS) {
      const failed = await store.backtests.transition(id, ['running'], {
        status: 'failed',
        error: { code: 'INTERRUPTED', message: `The run was interrupted ${r.attempts} times (server restart or crash); giving up` },
        finishedAt: clock.now().toISOString(),
      });
      if (failed) events.publish(`backtest:${id}:progress`, toProgressEvent(failed));
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
    events.publish(`backtest:${record.id}:progress`, toProgressEvent(record));
    let ownsSource = false;
    try {
      const version = await loadRunnableSource(store, record.userId, record.strategyId, record.strategyVersion).catch(() => null);
      if (!version) throw Object.assign(new Error(`Strategy ${record.strategyId} version ${record.strategyVersion} no longer exists`), { code: 'STRATEGY_DELETED' });
      ownsSource = version.userId === record.userId;
      const info = await executor.inspect(version.source);
      const timeframe = record.timeframe as TimeframeName;
      const warmupDays = Math.ceil(((info.warmup ?? 0) * TIMEFRAME_MS[timeframe]) / 86_400_000);
      const fetchFrom = (startDate: string) =>
        Promise.all(record.symbols.map((symbol) => marketData.getCandles({ symbol, timeframe, startDate, endDate: record.endDate })));
      const warmupStart = new Date(Date.parse(record.startDate) - warmupDays * 86_400_000).toISOString().slice(0, 10);
      // candles before the start only warm up indicators; where there are none, start cold
      const fetched = warmupDays > 0 ? await fetchFrom(warmupStart).catch(() => fetchFrom(record.startDate)) : await fetchFrom(record.startDate);
      const startTime = Date.parse(`${record.startDate}T00:00:00.000Z`);
      const totalBars = fetched.reduce((n, f) => n + f.series.length, 0);
      if (fetched.every((f) => f.series.length === 0 || f.series.time[f.series.length - 1]! < startTime)) {
        throw Object.assign(new Error('No candles in the requested range'), { code: 'DATA_NOT_FOUND' });
      }
      const dataSource = [...new Set(fetched.map((f) => f.source))].join(',');
      await store.backtests.transition(record.id, ['running'], { dataSource, totalBars });
      signal.throwIfAborted();

      let lastPublished = 0;
      const output = await executor.run(
        {
          source: version.source,
          series: fetched.map((f) => f.series),
          startTime,
          fees: record.fees,
          leverage: record.leverage,
          slippage: record.slippage,
          initialCapital: record.initialCapital,
          params: record.params,
          marketType: record.marketType,
          seed: seedOf(record),
        },
        {
          signal,
          onProgress: (processedBars, total) => {
            const now = Date.now();
            if (now - lastPublished < interval) return;
            lastPublished = now;
            const progress = total > 0 ? Math.min(0.99, processedBars / total) : 0;
            void store.backtests.transition(record.id, ['running'], { progress, processedBars, totalBars: total }).then((updated) => {
              if (updated) events.publish(`backtest:${record.id}:progress`, toProgressEvent(updated));
            }, () => undefined);
          },
        },
      );
      await store.backtests.saveResult({ backtestId: record.id, equityCurve: output.equityCurve, metrics: output.metrics, ...tradesToStore(output.trades, deps.maxStoredTrades) });
      const done = await store.backtests.transition(record.id, ['running'], {
        status: 'completed',
        progress: 1,
        processedBars: totalBars,
        totalBars,
        computeMs: Math.round(output.computeMs),
        finishedAt: clock.now().toISOString(),
      });
      if (done) events.publish(`backtest:${record.id}:progress`, toProgressEvent(done));
      await deps.onCompute?.(record.userId, output.computeMs);
    } catch (error) {
      if (signal.aborted) return; // cancelled (the service published the final state) or shutting down
      // A bought strategy's failure must not quote its code (run-only licence): keep the code only.
      const failure = ownsSource || (error as { code?: string }).code === 'DATA_NOT_FOUND' || isStratboxError(error) ? runError(error) : { code: runError(error).code, message: 'The purchased strategy failed; its author can see why' };
      if (failure.code === 'INTERNAL') logger.error('backtest failed', { backtestId: record.id, error: String(error) });
      const failed = await store.backtests.transition(record.id, ['running'], { status: 'failed', error: failure, finishedAt: clock.now().toISOString() });
      if (failed) events.publish(`backtest:${record.id}:progress`, toProgressEvent(failed));
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
          await queue.enqueue({ name: BACKTEST_JOB, id: r.id, payload: {}, ...(r.status === 'running' ? { redelivered: true } : {}) });
          continue;
        }
        if (r.status === 'running') {
          if (r.attempts >= MAX_ATTEMPTS) {
            const failed = await store.backtests.transition(r.id, ['running'], {
              status: 'failed',
              error: { code: 'INTERRUPTED', message: `The run was interrupted ${r.attempts} times (server restart or crash); giving up` },
              finishedAt: clock.now().toISOString(),
            });
            if (failed) events.publish(`backtest:${r.id}:progress`, toProgressEvent(failed));
            continue;
          }
          if (!(await store.backtests.transition(r.id, ['running'], { status: 'queued', progress: 0, processedBars: 0 }))) continue;
        }
        await queue.enqueue({ name: BACKTEST_JOB, id: r.id, payload: {} });
      }
      queue.process(BACKTEST_JOB, run, { concurrency: deps.concurrency ?? 2 });
    },
  };
}
