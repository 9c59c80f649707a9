import type { StratboxClient } from '@stratbox/client';
import { waitFor } from './deferred.js';
import { waitOptimizationFinished } from './optimizations.js';
import { waitFinished } from './wait-backtest.js';

/** An SMA crossover whose periods are parameters, so two runs of it differ; it logs each entry. */
export const SMA_CROSS = [
  "export const meta = { timeframe: '1h', params: { fast: { type: 'int', default: 10, min: 2 }, slow: { type: 'int', default: 30, min: 5 } } };",
  'export function onCandle(ctx, candle) {',
  '  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast), s = ctx.indicators.sma(candle.symbol, ctx.params.slow);',
  "  if (f > s && !ctx.position(candle.symbol)) { ctx.buy(candle.symbol, { size: 0.2 }); ctx.log('cross up', candle.symbol); }",
  '  else if (f < s && ctx.position(candle.symbol)) ctx.close(candle.symbol);',
  '}',
].join('\n');

/** Orders on every '1m' candle from the first: buys when flat, closes when long, and logs it. */
export const EVERY_CANDLE = [
  "export const meta = { timeframe: '1m' };",
  'export function onCandle(ctx, candle) {',
  '  if (ctx.position(candle.symbol)) ctx.close(candle.symbol);',
  '  else ctx.buy(candle.symbol, { quantity: 0.001 });',
  "  ctx.log('traded', candle.symbol);",
  '}',
].join('\n');

/** A strategy and two completed backtests of it with different parameters (fast 5/slow 20 and fast 10/slow 30). */
export async function seedTwoBacktests(client: StratboxClient): Promise<{ strategyId: string; backtestIds: [string, string] }> {
  const strategy = await client.strategies.create({ body: { name: 'SMA cross (seeded)', source: SMA_CROSS } });
  const ids: string[] = [];
  for (const params of [
    { fast: '5', slow: '20' },
    { fast: '10', slow: '30' },
  ]) {
    const created = await client.backtests.create({
      body: { strategyId: strategy.id, symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-02-28', params },
    });
    const done = await waitFinished(client, created.id, 120_000);
    if (done.status !== 'completed') throw new Error(`Seeded backtest ${created.id} ended ${done.status}`);
    ids.push(created.id);
  }
  return { strategyId: strategy.id, backtestIds: [ids[0]!, ids[1]!] };
}

/**
 * A running paper deployment of EVERY_CANDLE on BTC/USDT:USDT, on a new paper account, once it
 * has placed at least `orders` orders. A '1m' candle closes every real minute: give the service
 * a faster clock (`acceleratedClock`) and a short deployment poll for this to take seconds.
 */
export async function seedPaperDeployment(client: StratboxClient, orders = 2): Promise<{ deploymentId: string }> {
  const strategy = await client.strategies.create({ body: { name: 'Every candle (seeded)', source: EVERY_CANDLE } });
  const credential = await client.credentials.create({ body: { exchange: 'paper', label: 'Paper (seeded)' } });
  const { id } = await client.deployments.create({ body: { strategyId: strategy.id, credentialId: credential.id, symbols: ['BTC/USDT:USDT'] } });
  await waitFor(
    `${orders} orders of deployment ${id}`,
    async () => (await client.deployments.orders({ params: { id } })).orders.length >= orders,
    120_000,
    200,
  );
  return { deploymentId: id };
}

/** `seller` lists SMA_CROSS as `name` for $12.50, with tags and a description. */
export async function seedListing(seller: StratboxClient, name: string): Promise<{ listingId: string }> {
  const strategy = await seller.strategies.create({ body: { name: `${name} (source)`, source: SMA_CROSS } });
  const listing = await seller.marketplace.create({
    body: { strategyId: strategy.id, name, description: 'Rides trends on the hourly chart.', price: 1_250, tags: ['trend', 'seeded'] },
  });
  return { listingId: listing.id };
}

/** A listing as `seedListing` makes it, that `buyer` then buys and reviews 4 of 5. */
export async function seedReviewedListing(seller: StratboxClient, buyer: StratboxClient, name: string): Promise<{ listingId: string }> {
  const { listingId } = await seedListing(seller, name);
  await buyer.marketplace.purchase({ params: { id: listingId }, body: {} });
  await buyer.marketplace.review({ params: { id: listingId }, body: { rating: 4, text: 'Solid & steady' } });
  return { listingId };
}

/** The market and dates the seeded runs cover: BTC/USDT:USDT over January and February 2025 (hourly data in the fixtures). */
export const SEED_RANGE = { symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-02-28' };

/**
 * A completed grid optimization of `strategyId` (an SMA_CROSS): fast 5 or 10 by slow 20 or 30
 * over January and February 2025, with 2 walk-forward folds (8 trials).
 */
export async function seedOptimization(client: StratboxClient, strategyId: string): Promise<{ optimizationId: string }> {
  const created = await client.optimizations.create({
    body: {
      strategyId,
      ...SEED_RANGE,
      searchSpace: { fast: { values: [5, 10] }, slow: { values: [20, 30] } },
      validation: { kind: 'walk-forward', folds: 2, mode: 'rolling', inSampleFraction: 0.5 },
    },
  });
  const done = await waitOptimizationFinished(client, created.id, 180_000);
  if (done.status !== 'completed') throw new Error(`Seeded optimization ${created.id} ended ${done.status}`);
  return { optimizationId: created.id };
}
