import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  BacktestLogRecord,
  BacktestPatch,
  BacktestRecord,
  BacktestRepository,
  BacktestResultSummary,
  BacktestStatus,
  StoredBacktestLogRecord,
} from '@stratbox/core';
import { TRADE_BATCH_ROWS } from '../migrations/0008-backtest-trades.js';
import { LOG_BATCH_ROWS } from '../migrations/0010-backtest-logs.js';
import type { BacktestsTable } from '../schema.js';
import { atomically, type QueryContext } from './query-context.js';

const errorJson = (error: BacktestRecord['error']) => (error === null ? null : JSON.stringify({ code: error.code, message: error.message }));

function toRow(b: BacktestRecord): Insertable<BacktestsTable> {
  return {
    id: b.id,
    user_id: b.userId,
    strategy_id: b.strategyId,
    strategy_version: b.strategyVersion,
    status: b.status,
    progress: b.progress,
    processed_bars: b.processedBars,
    total_bars: b.totalBars,
    symbols: JSON.stringify(b.symbols),
    start_date: b.startDate,
    end_date: b.endDate,
    timeframe: b.timeframe,
    market_type: b.marketType,
    fees: JSON.stringify({ maker: b.fees.maker, taker: b.fees.taker }),
    leverage: b.leverage,
    slippage: b.slippage,
    initial_capital: b.initialCapital,
    params: JSON.stringify(b.params),
    data_source: b.dataSource,
    funding: b.funding ? 1 : 0,
    funding_source: b.fundingSource,
    compute_ms: b.computeMs,
    attempts: b.attempts,
    created_at: b.createdAt,
    started_at: b.startedAt,
    finished_at: b.finishedAt,
    error: errorJson(b.error),
  };
}

function toBacktest(row: Selectable<BacktestsTable>): BacktestRecord {
  return {
    id: row.id,
    userId: row.user_id,
    strategyId: row.strategy_id,
    strategyVersion: row.strategy_version,
    status: row.status as BacktestStatus,
    progress: row.progress,
    processedBars: row.processed_bars,
    totalBars: row.total_bars,
    symbols: JSON.parse(row.symbols) as string[],
    startDate: row.start_date,
    endDate: row.end_date,
    timeframe: row.timeframe,
    marketType: row.market_type,
    fees: JSON.parse(row.fees) as { maker: number; taker: number },
    leverage: row.leverage,
    slippage: row.slippage,
    initialCapital: row.initial_capital,
    params: JSON.parse(row.params) as Record<string, string>,
    dataSource: row.data_source,
    funding: Number(row.funding) === 1,
    fundingSource: row.funding_source,
    computeMs: row.compute_ms,
    attempts: row.attempts,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    error: row.error === null ? null : (JSON.parse(row.error) as { code: string; message: string }),
  };
}

/** The columns a patch sets; undefined fields are not given. */
function toUpdate(patch: BacktestPatch): Updateable<BacktestsTable> {
  const set: Updateable<BacktestsTable> = {};
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.progress !== undefined) set.progress = patch.progress;
  if (patch.processedBars !== undefined) set.processed_bars = patch.processedBars;
  if (patch.totalBars !== undefined) set.total_bars = patch.totalBars;
  if (patch.dataSource !== undefined) set.data_source = patch.dataSource;
  if (patch.fundingSource !== undefined) set.funding_source = patch.fundingSource;
  if (patch.computeMs !== undefined) set.compute_ms = patch.computeMs;
  if (patch.attempts !== undefined) set.attempts = patch.attempts;
  if (patch.startedAt !== undefined) set.started_at = patch.startedAt;
  if (patch.finishedAt !== undefined) set.finished_at = patch.finishedAt;
  if (patch.error !== undefined) set.error = errorJson(patch.error);
  return set;
}

/**
 * Backtests and their results. Symbols, params, fees, error and the results are JSON text; the
 * stored trades are one row each in `backtest_trades`, and the log lines one row each in
 * `backtest_logs`, both keyed by (backtest_id, seq), so a page reads only its rows. Results,
 * trades and log lines are deleted with their backtest (foreign keys, on delete cascade).
 */
export function createBacktestRepository({ db }: QueryContext): BacktestRepository {
  return {
    async insert(backtest) {
      await db.insertInto('backtests').values(toRow(backtest)).execute();
    },

    async findById(userId, id) {
      const row = await db.selectFrom('backtests').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return row ? toBacktest(row) : null;
    },

    async list(userId, { limit, after }, filter = {}) {
      let query = db.selectFrom('backtests').selectAll().where('user_id', '=', userId);
      if (filter.strategyId !== undefined) query = query.where('strategy_id', '=', filter.strategyId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toBacktest);
    },

    async transition(id, from, patch) {
      if (from.length === 0) return null;
      const set = toUpdate(patch);
      // One statement, so the status check and the change are atomic: of concurrent
      // transitions, the later ones wait for the row (PostgreSQL re-checks the WHERE on the
      // committed row; SQLite runs one statement at a time) and find the status changed.
      // RETURNING reads back the row as this statement left it (SQLite has it since 3.35).
      const row = await db
        .updateTable('backtests')
        .set(Object.keys(set).length > 0 ? set : (eb) => ({ status: eb.ref('status') }))
        .where('id', '=', id)
        .where('status', 'in', [...from])
        .returningAll()
        .executeTakeFirst();
      return row ? toBacktest(row) : null;
    },

    async listByStatus(statuses, limit) {
      if (statuses.length === 0) return [];
      const rows = await db
        .selectFrom('backtests')
        .selectAll()
        .where('status', 'in', [...statuses])
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(Math.max(0, limit))
        .execute();
      return rows.map(toBacktest);
    },

    async countForStrategy(userId, strategyId, before) {
      const row = await db
        .selectFrom('backtests')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
        .where('user_id', '=', userId)
        .where('strategy_id', '=', strategyId)
        .where('created_at', '<', before)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async countCreatedSince(userId, since) {
      const row = await db
        .selectFrom('backtests')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
        .where('user_id', '=', userId)
        .where('created_at', '>=', since)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async saveResult(result) {
      const values = {
        backtest_id: result.backtestId,
        equity_curve: JSON.stringify(result.equityCurve),
        metrics: JSON.stringify(result.metrics),
        trade_count: result.tradeCount,
        stored_trade_count: result.trades.length,
      };
      const trades = result.trades.map((trade, seq) => ({ backtest_id: result.backtestId, seq, trade: JSON.stringify(trade) }));
      await atomically(db, async (trx) => {
        await trx
          .insertInto('backtest_results')
          .values(values)
          .onConflict((oc) =>
            oc.column('backtest_id').doUpdateSet((eb) => ({
              equity_curve: eb.ref('excluded.equity_curve'),
              metrics: eb.ref('excluded.metrics'),
              trade_count: eb.ref('excluded.trade_count'),
              stored_trade_count: eb.ref('excluded.stored_trade_count'),
            })),
          )
          .execute();
        await trx.deleteFrom('backtest_trades').where('backtest_id', '=', result.backtestId).execute();
        for (let i = 0; i < trades.length; i += TRADE_BATCH_ROWS) {
          await trx
            .insertInto('backtest_trades')
            .values(trades.slice(i, i + TRADE_BATCH_ROWS))
            .execute();
        }
      });
    },

    async getResult(userId, backtestId): Promise<BacktestResultSummary | null> {
      const row = await db
        .selectFrom('backtest_results')
        .innerJoin('backtests', 'backtests.id', 'backtest_results.backtest_id')
        .select([
          'backtest_results.backtest_id',
          'backtest_results.equity_curve',
          'backtest_results.metrics',
          'backtest_results.trade_count',
          'backtest_results.stored_trade_count',
        ])
        .where('backtest_results.backtest_id', '=', backtestId)
        .where('backtests.user_id', '=', userId)
        .executeTakeFirst();
      if (!row) return null;
      return {
        backtestId: row.backtest_id,
        equityCurve: JSON.parse(row.equity_curve) as BacktestResultSummary['equityCurve'],
        metrics: JSON.parse(row.metrics) as BacktestResultSummary['metrics'],
        tradeCount: Number(row.trade_count),
        storedTradeCount: Number(row.stored_trade_count),
      };
    },

    async listTrades(userId, backtestId, { limit, afterSeq }) {
      let query = db
        .selectFrom('backtest_trades')
        .innerJoin('backtests', 'backtests.id', 'backtest_trades.backtest_id')
        .select(['backtest_trades.seq', 'backtest_trades.trade'])
        .where('backtest_trades.backtest_id', '=', backtestId)
        .where('backtests.user_id', '=', userId);
      if (afterSeq !== undefined) query = query.where('backtest_trades.seq', '>', afterSeq);
      const rows = await query.orderBy('backtest_trades.seq', 'asc').limit(Math.max(0, limit)).execute();
      return rows.map((r) => ({ seq: Number(r.seq), trade: JSON.parse(r.trade) as Record<string, unknown> }));
    },

    async saveLogs(backtestId, lines) {
      const rows = lines.map((l, seq) => ({ backtest_id: backtestId, seq, timestamp: l.timestamp, level: l.level, message: l.message }));
      await atomically(db, async (trx) => {
        // The foreign key refuses lines of a missing backtest only when there are lines to insert.
        const exists = await trx.selectFrom('backtests').select('id').where('id', '=', backtestId).executeTakeFirst();
        if (!exists) throw new Error(`No backtest ${backtestId} for these log lines`);
        await trx.deleteFrom('backtest_logs').where('backtest_id', '=', backtestId).execute();
        for (let i = 0; i < rows.length; i += LOG_BATCH_ROWS) {
          await trx
            .insertInto('backtest_logs')
            .values(rows.slice(i, i + LOG_BATCH_ROWS))
            .execute();
        }
      });
    },

    async listLogs(userId, backtestId, { since, after, limit }) {
      let query = db
        .selectFrom('backtest_logs')
        .innerJoin('backtests', 'backtests.id', 'backtest_logs.backtest_id')
        .select(['backtest_logs.seq', 'backtest_logs.timestamp', 'backtest_logs.level', 'backtest_logs.message'])
        .where('backtest_logs.backtest_id', '=', backtestId)
        .where('backtests.user_id', '=', userId);
      if (since !== undefined) query = query.where('backtest_logs.timestamp', '>=', since);
      if (after !== undefined) {
        query = query.where((eb) =>
          eb.or([
            eb('backtest_logs.timestamp', '>', after.timestamp),
            eb.and([eb('backtest_logs.timestamp', '=', after.timestamp), eb('backtest_logs.seq', '>', after.seq)]),
          ]),
        );
      }
      const rows = await query.orderBy('backtest_logs.timestamp', 'asc').orderBy('backtest_logs.seq', 'asc').limit(Math.max(0, limit)).execute();
      return rows.map(
        (r): StoredBacktestLogRecord => ({
          seq: Number(r.seq),
          timestamp: r.timestamp,
          level: r.level as BacktestLogRecord['level'],
          message: r.message,
        }),
      );
    },
  };
}
