import type { StratboxClient } from '@stratbox/client';
import { waitFor } from './deferred.js';

/**
 * On its first candle it asks for two orders: a small market buy and a limit buy far below. With
 * `maxOrdersPerMinute: 1` the second breaches the limit, so the deployment is halted at once, on
 * every start (a restart starts the strategy afresh).
 */
export const TWO_ORDERS = [
  "export const meta = { timeframe: '1m' };",
  'let asked = false;',
  'export function onCandle(ctx, candle) {',
  '  if (asked) return;',
  '  asked = true;',
  '  ctx.buy(candle.symbol, { quantity: 0.001 });',
  "  ctx.buy(candle.symbol, { type: 'limit', price: Math.round(candle.close * 0.5), quantity: 0.001 });",
  '}',
].join('\n');

/**
 * A paper deployment of TWO_ORDERS on BTC/USDT:USDT with every risk limit set, on a new paper
 * account, once it is halted by `maxOrdersPerMinute`. Give the service a faster clock and a short
 * deployment poll for this to take seconds.
 */
export async function seedHaltedDeployment(client: StratboxClient): Promise<{ deploymentId: string }> {
  const strategy = await client.strategies.create({ body: { name: 'Two orders (seeded)', source: TWO_ORDERS } });
  const credential = await client.credentials.create({ body: { exchange: 'paper', label: 'Paper, risk (seeded)' } });
  const { id } = await client.deployments.create({
    body: {
      strategyId: strategy.id,
      credentialId: credential.id,
      symbols: ['BTC/USDT:USDT'],
      risk: { maxDrawdown: 0.2, dailyLossLimit: 0.05, maxPositionNotional: 5000, maxOrdersPerMinute: 1, onBreach: 'keep' },
    },
  });
  await waitFor(`deployment ${id} halted`, async () => (await client.deployments.get({ params: { id } })).status === 'halted', 120_000, 200);
  return { deploymentId: id };
}
