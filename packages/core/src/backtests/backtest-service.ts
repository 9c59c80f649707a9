import type { z } from 'zod';
import { DETAIL_TRADES, MONTE_CARLO_MAX_STEPS, type BacktestStatus, CreateBacktestBody, MonteCarloBody, type MonteCarloResult } from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import type { BacktestRecord, Store } from '../ports/store.js';
import { withRunOnlyErrors } from '../marketplace/licences.js';
import { paginate, paginateBySeq, paginateLog } from '../util/cursor.js';
import { newBacktestRecord } from './new-backtest-record.js';
import { checkRunShape, resolveRunRequest } from './run-request.js';
import { pickStrategyRunner, type StrategyRunnerDep } from './strategy-runner-dep.js';
import { toBacktestDetail, toBacktestLogEntry, toBacktestSummary, toProgressEvent, toTradeView } from './backtest-views.js';
import { ranPurchasedStrategy } from './backtest-logs.js';
import type { LogPageQuery } from '../deployments/deployment-service.js';
import { parseInput } from '../util/validate.js';
import { createMonteCarlo, tradeReturns, type MonteCarloTrade } from '../research/monte-carlo.js';

export { MAX_BACKTEST_BARS } from './run-request.js';

export const BACKTEST_JOB = 'backtest';

export type BacktestServiceDeps = StrategyRunnerDep & {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  queue: JobQueue;
  /** Called before a backtest is created; throws to refuse (plan limits). */
  beforeCreate?: (userId: string) => Promise<void>;
  /** Called when a backtest that `beforeCreate` admitted could not be created after all. */
  afterCreateFailed?: (userId: string) => Promise<void>;
};

export type BacktestService = ReturnType<typeof createBacktestService>;

const ACTIVE: readonly BacktestStatus[] = ['queued', 'running'];

/** Log lines in a page when the query gives no `limit` (as a deployment's log). */
const DEFAULT_LOG_LIMIT = 200;

/** Stored trades read at a time for a Monte Carlo. */
const TRADE_BATCH = 1_000;
/** Steps (runs x trades) of a Monte Carlo between two turns of the event loop: a few milliseconds. */
const MONTE_CARLO_SLICE = 200_000;

/** Backtests: queued on create, run by a worker (see `createBacktestWorker`), cancellable. */
export function createBacktestService(deps: BacktestServiceDeps) {
  const { store, clock, events, queue } = deps;
  const runner = pickStrategyRunner(deps, 'createBacktestService');

  async function load(userId: string, id: string): Promise<BacktestRecord> {
    const record = await store.backtests.findById(userId, id);
    if (!record) throw notFound('Backtest', id);
    return record;
  }

  /**
   * One page of the strategy's log lines of the backtest (as `logs`), oldest first, with the
   * cursor of the next page, or null on the last one. A backtest of a bought strategy is a 403.
   */
  async function logPage(userId: string, id: string, query: LogPageQuery = {}) {
    const record = await load(userId, id);
    if (await ranPurchasedStrategy(store, record)) {
      throw new StratboxError(
        'FORBIDDEN',
        `Backtest ${id} ran a strategy bought on the marketplace: a run-only licence does not include the strategy's log, and none is kept`,
      );
    }
    const since = query.since;
    const page = await paginateLog(query, (p) => store.backtests.listLogs(userId, id, { ...p, ...(since ? { since } : {}) }), DEFAULT_LOG_LIMIT);
    return { logs: page.items.map(toBacktestLogEntry), nextCursor: page.nextCursor };
  }

  return {
    async create(userId: string, input: z.input<typeof CreateBacktestBody>) {
      const body = parseInput(CreateBacktestBody, input, 'body');
      const { runnable, marketType, info } = await resolveRunRequest(store, runner, userId, body);
      await withRunOnlyErrors(runnable.canReadSource, () => runner.checkParams(info, body.params));
      const { timeframe, totalBars } = checkRunShape(body, info);
      await deps.beforeCreate?.(userId);
      const record = newBacktestRecord(
        {
          userId,
          strategyId: runnable.strategyId,
          strategyVersion: runnable.version,
          totalBars,
          symbols: body.symbols,
          startDate: body.startDate,
          endDate: body.endDate,
          timeframe,
          marketType,
          fees: body.fees,
          leverage: body.leverage,
          slippage: body.slippage,
          initialCapital: body.initialCapital,
          params: body.params,
          funding: body.funding,
        },
        clock.now().toISOString(),
      );
      try {
        await store.backtests.insert(record);
      } catch (error) {
        await deps.afterCreateFailed?.(userId);
        throw error;
      }
      try {
        await queue.enqueue({ name: BACKTEST_JOB, id: record.id, group: userId, payload: {} });
      } catch (error) {
        // never leave a queued record no queue holds: fail it with a reason and give the slot back
        deps.logger.error('Could not enqueue a backtest', { backtestId: record.id, error: error instanceof Error ? error.message : String(error) });
        const failed = await store.backtests.transition(record.id, ['queued'], {
          status: 'failed',
          error: { code: 'UNAVAILABLE', message: 'The backtest could not be queued; nothing ran and it was not counted. Try again.' },
          finishedAt: clock.now().toISOString(),
        });
        if (failed) {
          events.publish(`backtest:${record.id}:progress`, toProgressEvent(failed));
          await deps.afterCreateFailed?.(userId);
        }
        throw new StratboxError('UNAVAILABLE', 'The backtest queue is unavailable; nothing was started or counted. Try again.');
      }
      return toBacktestSummary(record);
    },

    async list(
      userId: string,
      query: { strategyId?: string | undefined; status?: BacktestStatus | undefined; limit?: number | undefined; cursor?: string | undefined },
    ) {
      const filter = { ...(query.strategyId ? { strategyId: query.strategyId } : {}), ...(query.status ? { status: query.status } : {}) };
      const page = await paginate(query, (p) => store.backtests.list(userId, p, filter));
      return { backtests: page.items.map(toBacktestSummary), nextCursor: page.nextCursor };
    },

    /** The backtest with its results, bounded: the first `DETAIL_TRADES` trades (all are at `trades`). */
    async get(userId: string, id: string) {
      const record = await load(userId, id);
      const result = record.status === 'completed' ? await store.backtests.getResult(userId, id) : null;
      const firstTrades = result ? await store.backtests.listTrades(userId, id, { limit: DETAIL_TRADES }) : [];
      return toBacktestDetail(record, result, firstTrades);
    },

    /** One page of the backtest's stored trades, oldest entry first; empty until it completes. */
    async trades(userId: string, id: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
      await load(userId, id);
      const page = await paginateBySeq(query, (p) => store.backtests.listTrades(userId, id, p));
      return { trades: page.items.map((t) => toTradeView(t.trade)), nextCursor: page.nextCursor };
    },

    /**
     * The lines the strategy wrote (`ctx.log`, `console`) during the run, stamped with their
     * candle time, oldest first (timestamp, then order of writing): at or after `since`, after
     * `cursor`, at most `limit` (default 200), with the cursor of the next page (null on the last
     * one). Kept when the run ends (completed, failed, or cancelled when the sandbox could still
     * hand them back): empty until then. Another user's backtest is NOT_FOUND; a backtest of a
     * strategy bought on the marketplace is FORBIDDEN (a run-only licence does not include the
     * strategy's log; the worker keeps none for it).
     */
    logPage,

    /** As `logPage`, the lines alone. */
    async logs(userId: string, id: string, query: LogPageQuery = {}) {
      return (await logPage(userId, id, query)).logs;
    },

    /**
     * Monte Carlo over the backtest's stored trades (docs/research.md): `runs` paths of their
     * per-trade returns by `method`, from `seed`; the same body answers the same. Another user's
     * backtest is NOT_FOUND; one that is not completed is CONFLICT; `runs` × stored trades above
     * `MONTE_CARLO_MAX_STEPS` is VALIDATION_FAILED, refused before any trade is read. No trades:
     * every value is 0.
     */
    async monteCarlo(userId: string, id: string, input?: z.input<typeof MonteCarloBody>): Promise<MonteCarloResult> {
      const body = parseInput(MonteCarloBody, input, 'body');
      const record = await load(userId, id);
      if (record.status !== 'completed') {
        throw new StratboxError('CONFLICT', `Backtest ${id} is ${record.status}; Monte Carlo needs a completed backtest`);
      }
      const stored = (await store.backtests.getResult(userId, id))?.storedTradeCount ?? 0;
      if (body.runs * stored > MONTE_CARLO_MAX_STEPS) {
        const most = Math.floor(MONTE_CARLO_MAX_STEPS / Math.max(stored, 1));
        const message = `runs × trades is ${body.runs} × ${stored}; at most ${MONTE_CARLO_MAX_STEPS} are allowed (at most ${most} runs for this backtest)`;
        throw new StratboxError('VALIDATION_FAILED', `Monte Carlo too large: ${message}`, [{ path: 'body.runs', message }]);
      }
      const trades: MonteCarloTrade[] = [];
      for (let afterSeq: number | undefined; ; ) {
        const batch = await store.backtests.listTrades(userId, id, afterSeq === undefined ? { limit: TRADE_BATCH } : { limit: TRADE_BATCH, afterSeq });
        for (const { trade } of batch) trades.push({ pnl: Number(trade.pnl), exitTime: String(trade.exitTime) });
        if (batch.length < TRADE_BATCH) break;
        afterSeq = batch[batch.length - 1]!.seq;
      }
      const returns = tradeReturns(trades, record.initialCapital);
      // In slices of about MONTE_CARLO_SLICE steps, the event loop given back between them: a large
      // simulation never holds up other users' requests for more than a few milliseconds.
      const simulation = createMonteCarlo(returns, body);
      const slice = Math.max(1, Math.floor(MONTE_CARLO_SLICE / Math.max(returns.length, 1)));
      while (simulation.run(slice)) await new Promise<void>((resolve) => setImmediate(resolve));
      const result = simulation.result();
      return { backtestId: id, method: body.method, runs: body.runs, seed: body.seed, trades: returns.length, ruinThreshold: body.ruinThreshold, ...result };
    },

    /** Cancels a queued or running backtest; a finished one is a 409 and stays as it is. */
    async cancel(userId: string, id: string) {
      const record = await load(userId, id);
      if (!ACTIVE.includes(record.status)) {
        throw new StratboxError('CONFLICT', `Backtest ${id} is ${record.status}; only queued or running backtests can be cancelled`);
      }
      const cancelled = await store.backtests.transition(id, ACTIVE, { status: 'cancelled', finishedAt: clock.now().toISOString() });
      if (!cancelled) {
        const now = await load(userId, id);
        throw new StratboxError('CONFLICT', `Backtest ${id} is ${now.status}; only queued or running backtests can be cancelled`);
      }
      await queue.cancel(id);
      events.publish(`backtest:${id}:progress`, toProgressEvent(cancelled));
      return toBacktestSummary(cancelled);
    },

    /** The final state of a finished backtest, or null while it runs (for late WebSocket subscribers). */
    async finalEvent(userId: string, id: string) {
      const record = await store.backtests.findById(userId, id);
      if (!record) return null;
      return { final: ACTIVE.includes(record.status) ? undefined : toProgressEvent(record) };
    },
  };
}
