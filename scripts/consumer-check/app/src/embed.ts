/**
 * Smoke test of a host application that embeds core on SQLite: a user, a strategy, a backtest,
 * `await stratbox.start()`, and the backtest runs to completion in the sandbox pool (whose child
 * processes start from the installed package's dist/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStratbox } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';
import { SMA_SOURCE, waitFor } from './shared.js';

const dir = mkdtempSync(join(tmpdir(), 'stratbox-embed-'));
const store = await createKyselyStore({ dialect: 'sqlite', filename: join(dir, 'stratbox.sqlite') });
const stratbox = createStratbox({ store });
try {
  await stratbox.start();
  const { userId } = await stratbox.users.createUser('alice');
  // The same inputs as over HTTP, with the same defaults (fees, leverage, capital, ...).
  const strategy = await stratbox.strategies.create(userId, { name: 'SMA cross', source: SMA_SOURCE });
  const queued = await stratbox.backtests.create(userId, {
    strategyId: strategy.id,
    symbols: ['BTC/USDT:USDT'],
    startDate: '2025-01-01',
    endDate: '2025-02-28',
  });
  const done = await waitFor('the embedded backtest', async () => {
    const b = await stratbox.backtests.get(userId, queued.id);
    return b.status === 'completed' || b.status === 'failed' ? b : undefined;
  });
  if (done.status !== 'completed' || !done.metrics) throw new Error(`backtest ended ${done.status}: ${JSON.stringify(done.error)}`);
  console.log(`embed: backtest ${done.id} completed, ${done.metrics.tradeCount} trades, return ${done.metrics.totalReturn}`);
} finally {
  await stratbox.close();
  rmSync(dir, { recursive: true, force: true });
}
