import { expect } from 'vitest';
import type { BacktestRecord } from '@stratbox/core';
import type { KyselyStore } from './create-kysely-store.js';

/*
 * Test fixture shared by the SQLite and PostgreSQL tests: deleting a backtest's row deletes what
 * hangs off it (results, trades, log lines) through the foreign keys, and nothing of another
 * backtest. The Store port has no delete of a backtest, so the row is deleted with SQL, as a
 * host's own clean-up would.
 */

const backtest = (id: string): BacktestRecord => ({
  id,
  userId: 'usr_cascade',
  strategyId: 'str_cascade',
  strategyVersion: 1,
  status: 'completed',
  progress: 1,
  processedBars: 2,
  totalBars: 2,
  symbols: ['BTC/USDT:USDT'],
  startDate: '2025-01-01',
  endDate: '2025-01-01',
  timeframe: '1h',
  marketType: 'LINEAR',
  fees: { maker: 0, taker: 0 },
  leverage: 1,
  slippage: 0,
  initialCapital: 1000,
  params: {},
  dataSource: 'synthetic',
  funding: false,
  fundingSource: null,
  computeMs: 1,
  attempts: 1,
  createdAt: '2025-01-02T00:00:00.000Z',
  startedAt: '2025-01-02T00:00:00.000Z',
  finishedAt: '2025-01-02T00:00:01.000Z',
  error: null,
});

/** Saves results and log lines for two backtests, deletes one's row, and checks only its rows went. */
export async function expectBacktestDeleteCascades(store: KyselyStore): Promise<void> {
  const lines = [0, 1, 2].map((i) => ({ timestamp: `2025-01-01T0${i}:00:00.000Z`, level: 'info' as const, message: `line ${i}` }));
  for (const id of ['bt_cascade_gone', 'bt_cascade_kept']) {
    await store.backtests.insert(backtest(id));
    await store.backtests.saveResult({ backtestId: id, equityCurve: [], trades: [{ pnl: 1 }], tradeCount: 1, metrics: {} });
    await store.backtests.saveLogs(id, lines);
  }
  await store.db.deleteFrom('backtests').where('id', '=', 'bt_cascade_gone').execute();

  const left = async (table: 'backtest_logs' | 'backtest_trades' | 'backtest_results', id: string) =>
    (await store.db.selectFrom(table).select('backtest_id').where('backtest_id', '=', id).execute()).length;
  expect(await left('backtest_logs', 'bt_cascade_gone')).toBe(0);
  expect(await left('backtest_trades', 'bt_cascade_gone')).toBe(0);
  expect(await left('backtest_results', 'bt_cascade_gone')).toBe(0);
  expect(await store.backtests.listLogs('usr_cascade', 'bt_cascade_gone', { limit: 10 })).toEqual([]);
  expect((await store.backtests.listLogs('usr_cascade', 'bt_cascade_kept', { limit: 10 })).map((l) => l.message)).toEqual(['line 0', 'line 1', 'line 2']);
}
