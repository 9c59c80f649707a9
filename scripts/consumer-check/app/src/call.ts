/**
 * Smoke test of a frontend or Node program that calls a running service with the typed client,
 * run from a directory where only `@stratbox/client` (and what it depends on) is installed.
 */
import { createStratboxClient, isStratboxClientError } from '@stratbox/client';
import { SMA_SOURCE, waitFor } from './shared.js';

const baseUrl = process.env.STRATBOX_URL;
const apiKey = process.env.STRATBOX_API_KEY;
if (!baseUrl || !apiKey) throw new Error('STRATBOX_URL and STRATBOX_API_KEY are required');

const client = createStratboxClient({ baseUrl, apiKey });
const strategy = await client.strategies.create({ body: { name: 'SMA cross', source: SMA_SOURCE } });
const page = await client.strategies.list({ query: { limit: 1 } });
if (page.strategies[0]?.id !== strategy.id) throw new Error('the new strategy is not first in the list');

const queued = await client.backtests.create({
  body: { strategyId: strategy.id, symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-01-31' },
});
const done = await waitFor('the backtest over HTTP', async () => {
  const b = await client.backtests.get({ params: { id: queued.id } });
  return b.status === 'completed' || b.status === 'failed' ? b : undefined;
});
if (done.status !== 'completed') throw new Error(`backtest ended ${done.status}: ${JSON.stringify(done.error)}`);
const trades = await client.backtests.trades({ params: { id: done.id }, query: { limit: 5 } });

try {
  await client.strategies.get({ params: { id: 'str_0000000000000000000000' } });
  throw new Error('a missing strategy did not fail');
} catch (error) {
  if (!isStratboxClientError(error) || error.code !== 'NOT_FOUND') throw error;
}
console.log(
  `call: backtest ${done.id} completed over HTTP, ${done.tradeCount} trades (${trades.trades.length} in the first page); NOT_FOUND re-created by the client`,
);
