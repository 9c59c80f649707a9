import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBacktestBody, NOTIFICATION_EVENT_CATALOGUE } from '@stratbox/core/contract';
import { createSilentLogger, createStratbox, type NotificationEventRecord, type Stratbox } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';

/*
 * The notification events the services write, on the SQLite store (its single connection runs
 * one transaction at a time, so an emitter that wrote outside its transaction would deadlock
 * here): a backtest, a paper deployment's start, fill and stop, a purchase and a review, the
 * usage thresholds, and a rolled-back metering that leaves no event.
 */

const SYMBOL = 'BTC/USDT:USDT';
const QUICK = `export const meta = { timeframe: '1h' };\nexport function onCandle(ctx, c) { if (!ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.1 }); else ctx.close(c.symbol); }`;
const BUY_ONCE = `export const meta = { timeframe: '1m' };\nlet done = false;\nexport function onCandle(ctx, c) { if (done) return; done = true; ctx.buy(c.symbol, { quantity: 0.01 }); }`;

/** A clock 400 times faster than real time (a '1m' candle every 150 ms), never going back. */
function fastClock(factor: number) {
  const start = Date.now();
  let last = 0;
  return {
    now() {
      last = Math.max(last, start + (Date.now() - start) * factor);
      return new Date(last);
    },
  };
}

let dir: string;
let stratbox: Stratbox;
let alice: string;
let bob: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratbox-emitters-'));
  const store = await createKyselyStore({ dialect: 'sqlite', filename: join(dir, 'stratbox.sqlite') });
  stratbox = createStratbox({
    store,
    logger: createSilentLogger(),
    clock: fastClock(400),
    sandbox: { size: 1, cpuTimeMs: 10_000 },
    deployments: { pollIntervalMs: 40 },
    billing: { plans: { free: { limits: { backtests: 5, deployments: 5, computeSeconds: 100_000 } } } },
  });
  await stratbox.start();
  alice = (await stratbox.users.createUser('alice')).userId;
  bob = (await stratbox.users.createUser('bob')).userId;
}, 60_000);

afterAll(async () => {
  await stratbox?.close();
  await rm(dir, { recursive: true, force: true });
});

const outbox = (userId: string) => stratbox.store.notificationEvents.list(userId, { limit: 50 });
const about = async (userId: string, subjectId: string, type?: string) =>
  (await outbox(userId)).filter((e) => e.subjectId === subjectId && (type === undefined || e.type === type));
const data = (e: NotificationEventRecord) => NOTIFICATION_EVENT_CATALOGUE[e.type].data.parse(e.data);

describe('notification events on SQLite', () => {
  it('a completed backtest, and usage.limit_near at its 4th of 5 backtests', async () => {
    const s = await stratbox.strategies.create(alice, { name: 'q', description: '', source: QUICK, marketType: 'LINEAR' });
    const body = CreateBacktestBody.parse({ strategyId: s.id, symbols: [SYMBOL], startDate: '2025-01-01', endDate: '2025-01-03' });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await stratbox.backtests.create(alice, body)).id);
    for (const id of ids) await expect.poll(async () => (await stratbox.backtests.get(alice, id)).status, { timeout: 120_000 }).toBe('completed');
    for (const id of ids) {
      const events = await about(alice, id);
      expect(events.map((e) => e.type)).toEqual(['backtest.completed']);
      const b = await stratbox.backtests.get(alice, id);
      expect(data(events[0]!)).toMatchObject({
        backtestId: id,
        strategyId: s.id,
        metrics: { tradeCount: b.metrics!.tradeCount, totalReturn: b.metrics!.totalReturn },
      });
    }
    const near = (await outbox(alice)).filter((e) => e.type === 'usage.limit_near');
    expect(near).toHaveLength(1);
    expect(data(near[0]!)).toMatchObject({ counter: 'backtests', used: 4, limit: 5 });
    expect(await outbox(bob)).toEqual([]);
  }, 180_000);

  it("a paper deployment's start, fill and stop", async () => {
    const s = await stratbox.strategies.create(alice, { name: 'd', description: '', source: BUY_ONCE, marketType: 'LINEAR' });
    const credential = await stratbox.credentials.create(alice, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    const { id } = await stratbox.deployments.create(alice, { strategyId: s.id, credentialId: credential.id, symbols: [SYMBOL] });
    await expect
      .poll(async () => (await stratbox.deployments.orders(alice, id, { limit: 10 })).orders.filter((o) => o.status === 'filled').length, { timeout: 60_000 })
      .toBe(1);
    const stopped = await stratbox.deployments.stop(alice, id);
    expect(stopped.status).toBe('stopped');
    const types = (await about(alice, id)).map((e) => e.type).sort();
    expect(types).toEqual(['deployment.order.filled', 'deployment.order.filled', 'deployment.started', 'deployment.stopped']);
    const filled = (await stratbox.deployments.orders(alice, id, { limit: 10 })).orders.filter((o) => o.status === 'filled');
    const fillIds = (await about(alice, id, 'deployment.order.filled')).map((e) => (data(e) as unknown as { order: { id: string } }).order.id);
    expect(fillIds.sort()).toEqual(filled.map((o) => o.id).sort());
  }, 120_000);

  it('a purchase and a review tell the seller; a rolled-back metering tells no one', async () => {
    const s = await stratbox.strategies.create(alice, { name: 'm', description: '', source: QUICK, marketType: 'LINEAR' });
    const listing = await stratbox.marketplace.listings.create(alice, { strategyId: s.id, name: 'Quick', description: 'q', price: 0, tags: [] });
    const purchase = await stratbox.marketplace.purchases.purchase(bob, listing.id);
    const review = await stratbox.marketplace.reviews.create(bob, listing.id, { rating: 5, text: 'great' });
    const events = await about(alice, listing.id);
    expect(events.map((e) => e.type).sort()).toEqual(['listing.purchased', 'review.created']);
    expect(data(events.find((e) => e.type === 'listing.purchased')!)).toEqual({ listingId: listing.id, purchaseId: purchase.id, title: 'Quick' });
    expect(data(events.find((e) => e.type === 'review.created')!)).toEqual({ listingId: listing.id, reviewId: review.id, rating: 5, title: 'Quick' });
    expect(await outbox(bob)).toEqual([]);

    await expect(
      stratbox.store.transaction(async (tx) => {
        await stratbox.billing.usage.addCompute(bob, 100_000_000, tx);
        throw new Error('the run could not be recorded');
      }),
    ).rejects.toThrow('the run could not be recorded');
    expect(await outbox(bob)).toEqual([]);
    await stratbox.billing.usage.addCompute(bob, 100_000_000);
    expect((await outbox(bob)).map((e) => e.type).sort()).toEqual(['usage.limit_near', 'usage.limit_reached']);
  });
});
