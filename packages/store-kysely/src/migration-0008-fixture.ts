import { Migrator, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '@stratbox/core';
import type { DialectName } from './dialect-name.js';
import { createMigrationProvider } from './migrations/index.js';

/*
 * Test fixture of migration 0008 (backtest trades one row each), shared by the SQLite and
 * PostgreSQL tests: a database at 0007 with a completed backtest whose results hold its trades
 * as JSON, and the check that a store opened on it reads them back through the new port.
 */

const TRADES = Array.from({ length: 1_234 }, (_, i) => ({ symbol: 'BTC/USDT:USDT', side: 'long', entryTime: new Date(i * 60_000).toISOString(), pnl: i / 7 }));

/** Migrates `db` to 0007 and saves a backtest `bt_old` of `usr_old` with 1,234 trades in its results. */
export async function seedResultsBefore0008(db: Kysely<any>, dialect: DialectName, migrationTableSchema?: string): Promise<void> {
  const migrator = new Migrator({ db, provider: createMigrationProvider(dialect), ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error } = await migrator.migrateTo('0007-paper-accounts');
  expect(error).toBeUndefined();
  await db
    .insertInto('backtests')
    .values({
      id: 'bt_old',
      user_id: 'usr_old',
      strategy_id: 'str_old',
      strategy_version: 1,
      status: 'completed',
      progress: 1,
      processed_bars: 10,
      total_bars: 10,
      symbols: '["BTC/USDT:USDT"]',
      start_date: '2025-01-01',
      end_date: '2025-01-02',
      timeframe: '1h',
      market_type: 'LINEAR',
      fees: '{"maker":0,"taker":0}',
      leverage: 1,
      slippage: 0,
      initial_capital: 1000,
      params: '{}',
      data_source: 'synthetic',
      compute_ms: 1,
      attempts: 1,
      created_at: '2025-01-03T00:00:00.000Z',
      started_at: null,
      finished_at: null,
      error: null,
    })
    .execute();
  await db
    .insertInto('backtest_results')
    .values({ backtest_id: 'bt_old', equity_curve: '[]', trades: JSON.stringify(TRADES), metrics: '{"tradeCount":1234}' })
    .execute();
}

/** Checks that `store` (opened, so migrated, after `seedResultsBefore0008`) serves the old trades in order, to their owner only. */
export async function expectTradesMovedBy0008(store: Store): Promise<void> {
  expect(await store.backtests.getResult('usr_old', 'bt_old')).toEqual({
    backtestId: 'bt_old',
    equityCurve: [],
    metrics: { tradeCount: 1234 },
    tradeCount: 1_234,
    storedTradeCount: 1_234,
  });
  expect(await store.backtests.listTrades('usr_old', 'bt_old', { limit: 5_000 })).toEqual(TRADES.map((trade, seq) => ({ seq, trade })));
  expect(await store.backtests.listTrades('usr_other', 'bt_old', { limit: 5 })).toEqual([]);
  // Migration 0009 then gives the backtest made before it the funding it had: none.
  expect(await store.backtests.findById('usr_old', 'bt_old')).toMatchObject({ dataSource: 'synthetic', funding: false, fundingSource: null });
}
