import { afterEach, beforeEach, describe, expect, it, afterAll } from 'vitest';
import { NOTIFICATION_EVENT_CATALOGUE } from '@stratbox/contract';
import { createBillingServices } from '../billing/create-billing-services.js';
import { createLocalBillingProvider, type LocalBillingProvider } from '../billing/local-billing-provider.js';
import { createMarketplaceServices } from '../marketplace/create-marketplace-services.js';
import type { BillingEvent, SubscriptionEventStatus } from '../ports/billing-provider.js';
import type { Clock } from '../ports/clock.js';
import { createSilentLogger } from '../ports/logger.js';
import type { NotificationEventRecord, Store } from '../ports/store.js';
import { createStrategyService } from '../strategies/strategy-service.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { createSandboxPool } from '../backtests/engine/backtest-pool.js';
import { createSandboxStrategyRunner } from '../backtests/sandbox-strategy-runner.js';

/** Inspects listed versions for their verification records (a real sandbox). */
const testRunner = createSandboxStrategyRunner(createSandboxPool({ size: 1 }));
afterAll(() => testRunner.close());

/*
 * The marketplace events (`listing.purchased`, `review.created`, both to the seller) and the
 * billing ones (`subscription.changed`, `usage.limit_near`, `usage.limit_reached`), written by the
 * real services on the memory store. A store whose next commit fails shows that an event goes
 * with its change: rolled back together, written once on redelivery.
 */

const SOURCE = '// SECRET-EDGE-7f3a\nexport function onCandle(ctx, c) { if (c.close > 42) ctx.buy(c.symbol, { quantity: 1 }); }\n';
const logger = createSilentLogger();

/** A memory store whose next transaction, when armed, fails after its work is done (a failed commit: nothing it wrote stays). */
function failingStore() {
  const inner = createMemoryStore();
  let failNext = false;
  const store: Store = {
    ...inner,
    transaction: (fn) =>
      inner.transaction(async (tx) => {
        const result = await fn(tx);
        if (failNext) {
          failNext = false;
          throw new Error('commit failed');
        }
        return result;
      }),
  };
  return {
    store,
    failNextCommit() {
      failNext = true;
    },
  };
}

function testClock(start = '2026-03-15T12:00:00.000Z') {
  let now = Date.parse(start);
  const clock: Clock & { set(iso: string): void } = {
    now: () => new Date((now += 1)),
    set(iso) {
      now = Date.parse(iso);
    },
  };
  return clock;
}

const parsed = (e: NotificationEventRecord) => NOTIFICATION_EVENT_CATALOGUE[e.type].data.parse(e.data);

let db: ReturnType<typeof failingStore>;
let store: Store;
let clock: ReturnType<typeof testClock>;
beforeEach(() => {
  db = failingStore();
  store = db.store;
  clock = testClock();
});
afterEach(() => store.close());

const outbox = (userId: string) => store.notificationEvents.list(userId, { limit: 50 });
const ofType = async (userId: string, type: string) => (await outbox(userId)).filter((e) => e.type === type);

describe('marketplace events', () => {
  let seller: string;
  let buyer: string;
  beforeEach(() => {
    [seller, buyer] = [newId('user'), newId('user')];
  });

  function setup(paidConfirmedLater = false) {
    const local = createLocalBillingProvider({ store, clock, webhookSecret: 'local-secret' });
    // A provider whose paid checkout waits for its confirmation (as Stripe's does), through the local provider's signed webhooks.
    const provider: LocalBillingProvider = paidConfirmedLater
      ? { ...local, createPurchaseCheckout: async (input) => ({ ...(await local.createPurchaseCheckout(input)), completed: false }) }
      : local;
    const billing = createBillingServices({ store, clock, logger, provider });
    const marketplace = createMarketplaceServices({ store, clock, logger, billing, strategyRunner: testRunner });
    const strategies = createStrategyService({ store, clock });
    return { billing, provider, strategies, ...marketplace };
  }

  async function listing(services: ReturnType<typeof setup>, price = 0) {
    const s = await services.strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'LINEAR' });
    return services.listings.create(seller, { strategyId: s.id, name: 'Trend rider', description: 'Follows the trend', price, tags: ['trend'] });
  }

  it('a free purchase tells the seller at once (listing.purchased), without naming the buyer or carrying the source', async () => {
    const services = setup();
    const l = await listing(services);
    const purchase = await services.purchases.purchase(buyer, l.id);
    const events = await outbox(seller);
    expect(events.map((e) => e.type)).toEqual(['listing.purchased']);
    expect(events[0]).toMatchObject({
      userId: seller,
      severity: 'info',
      subjectKind: 'listing',
      subjectId: l.id,
      summary: 'Your listing "Trend rider" was bought',
    });
    expect(parsed(events[0]!)).toEqual({ listingId: l.id, purchaseId: purchase.id, title: 'Trend rider' });
    const all = JSON.stringify(events);
    expect(all).not.toContain(buyer);
    expect(all).not.toContain('SECRET-EDGE');
    expect(await outbox(buyer)).toEqual([]);
  });

  it('a paid purchase tells the seller when the provider confirms it: not before, nothing on a failed commit, once on redelivery', async () => {
    const services = setup(true);
    const l = await listing(services, 4_200);
    const purchase = await services.purchases.purchase(buyer, l.id);
    expect(purchase.status).toBe('pending');
    expect(await outbox(seller)).toEqual([]);

    const confirm: BillingEvent = {
      id: 'evt_local_paid',
      created: '2026-03-15T12:01:00.000Z',
      type: 'purchase.completed',
      data: { purchaseId: purchase.id, sessionId: 'cs_local_x' },
    };
    const webhook = services.provider.signEvent(confirm);
    const body = new TextEncoder().encode(webhook.body);
    db.failNextCommit();
    await expect(services.billing.events.handleWebhook(body, webhook.headers)).rejects.toThrow('commit failed');
    expect((await services.purchases.list(buyer, {})).purchases[0]!.status).toBe('pending');
    expect(await outbox(seller)).toEqual([]);

    await services.billing.events.handleWebhook(body, webhook.headers);
    await services.billing.events.handleWebhook(body, webhook.headers);
    expect((await services.purchases.list(buyer, {})).purchases[0]!.status).toBe('completed');
    const events = await outbox(seller);
    expect(events.map((e) => e.type)).toEqual(['listing.purchased']);
    expect(parsed(events[0]!)).toEqual({ listingId: l.id, purchaseId: purchase.id, title: 'Trend rider' });
    expect(await outbox(buyer)).toEqual([]);
  });

  it('a review tells the seller (review.created) with its rating; an edit does not', async () => {
    const services = setup();
    const l = await listing(services);
    await services.purchases.purchase(buyer, l.id);
    const review = await services.reviews.create(buyer, l.id, { rating: 4, text: 'solid' });
    await services.reviews.update(buyer, l.id, review.id, { rating: 5, text: 'even better' });
    const events = await ofType(seller, 'review.created');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ userId: seller, subjectKind: 'listing', subjectId: l.id, summary: 'Your listing "Trend rider" got a 4-star review' });
    expect(parsed(events[0]!)).toEqual({ listingId: l.id, reviewId: review.id, rating: 4, title: 'Trend rider' });
    expect(JSON.stringify(events)).not.toContain(buyer);
    expect(await outbox(buyer)).toEqual([]);
  });
});

describe('billing events', () => {
  it('subscription.changed on checkout and on a change of status, once per provider event; not for a change of neither', async () => {
    const provider = createLocalBillingProvider({ store, clock, webhookSecret: 'local-secret' });
    const { subscriptions, events } = createBillingServices({ store, clock, logger, provider });
    const userId = newId('user');
    const other = newId('user');
    await subscriptions.checkout(userId, 'pro');
    const first = await ofType(userId, 'subscription.changed');
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ userId, subjectKind: 'subscription', summary: 'Your subscription is now pro, active' });
    expect(parsed(first[0]!)).toEqual({ tier: 'pro', status: 'active', previousTier: null, previousStatus: null });

    const record = (await store.subscriptions.findByUser(userId))!;
    const update = (id: string, created: string, status: SubscriptionEventStatus, cancelAtPeriodEnd = false): BillingEvent => ({
      id,
      created,
      type: 'subscription.updated',
      data: {
        userId,
        customerId: record.customerId,
        subscriptionId: record.subscriptionId,
        tier: 'pro',
        status,
        currentPeriodStart: record.currentPeriodStart,
        currentPeriodEnd: record.currentPeriodEnd,
        cancelAtPeriodEnd,
      },
    });
    const deliver = async (event: BillingEvent) => {
      const signed = provider.signEvent(event);
      await events.handleWebhook(new TextEncoder().encode(signed.body), signed.headers);
    };
    // A change of neither tier nor status: nothing.
    await deliver(update('evt_local_cancel_later', '2026-03-16T00:00:00.000Z', 'active', true));
    expect(await ofType(userId, 'subscription.changed')).toHaveLength(1);
    // The renewal failed: past_due, delivered twice.
    const pastDue = update('evt_local_past_due', '2026-03-17T00:00:00.000Z', 'past_due');
    await deliver(pastDue);
    await deliver(pastDue);
    const changed = await ofType(userId, 'subscription.changed');
    expect(changed).toHaveLength(2);
    expect(parsed(changed[0]!)).toEqual({ tier: 'pro', status: 'past_due', previousTier: 'pro', previousStatus: 'active' });
    expect(changed[0]!.summary).toBe('Your subscription is now pro, past_due (was pro, active)');
    expect(await outbox(other)).toEqual([]);
  });

  it('usage.limit_near at 80 % and usage.limit_reached at 100 % of the backtests, once per period', async () => {
    const { usage } = createBillingServices({ store, clock, logger, plans: { free: { limits: { backtests: 5 } } } });
    const userId = newId('user');
    for (let i = 0; i < 3; i++) await usage.reserveBacktest(userId);
    expect(await outbox(userId)).toEqual([]);
    await usage.reserveBacktest(userId); // 4 of 5: 80 %
    const near = await ofType(userId, 'usage.limit_near');
    expect(near).toHaveLength(1);
    const periodStart = '2026-03-01T00:00:00.000Z';
    expect(near[0]).toMatchObject({ userId, severity: 'warning', subjectKind: 'usage', subjectId: 'backtests' });
    expect(parsed(near[0]!)).toEqual({ counter: 'backtests', used: 4, limit: 5, periodStart });
    await usage.reserveBacktest(userId); // 5 of 5
    await expect(usage.reserveBacktest(userId)).rejects.toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED' });
    // given back and taken again: the same period's events are not written again
    await usage.releaseBacktest(userId);
    await usage.releaseBacktest(userId);
    await usage.reserveBacktest(userId);
    await usage.reserveBacktest(userId);
    const reached = await ofType(userId, 'usage.limit_reached');
    expect(reached).toHaveLength(1);
    expect(reached[0]).toMatchObject({ severity: 'critical', summary: 'Your backtests usage reached its limit: 5 of 5 backtests this period' });
    expect(parsed(reached[0]!)).toEqual({ counter: 'backtests', used: 5, limit: 5, periodStart });
    expect(await ofType(userId, 'usage.limit_near')).toHaveLength(1);

    // a new period: told again
    clock.set('2026-04-02T00:00:00.000Z');
    for (let i = 0; i < 4; i++) await usage.reserveBacktest(userId);
    const again = await ofType(userId, 'usage.limit_near');
    expect(again.map((e) => (e.data as { periodStart: string }).periodStart)).toEqual(['2026-04-01T00:00:00.000Z', periodStart]);
  });

  it('usage events of compute, in the transaction that meters it: none when that transaction rolls back', async () => {
    const { usage } = createBillingServices({ store, clock, logger, plans: { free: { limits: { computeSeconds: 10 } } } });
    const userId = newId('user');
    await usage.addCompute(userId, 7_999);
    expect(await outbox(userId)).toEqual([]);
    // metered in a run's transaction that fails: neither the compute nor its event stays
    await expect(
      store.transaction(async (tx) => {
        await usage.addCompute(userId, 3_000, tx);
        throw new Error('the run could not be recorded');
      }),
    ).rejects.toThrow('the run could not be recorded');
    expect((await usage.get(userId)).compute.used).toBe(7);
    expect(await outbox(userId)).toEqual([]);

    await usage.addCompute(userId, 1); // 8.000 s of 10: 80 %
    await usage.addCompute(userId, 500);
    const near = await ofType(userId, 'usage.limit_near');
    expect(near).toHaveLength(1);
    expect(parsed(near[0]!)).toEqual({ counter: 'compute', used: 8, limit: 10, periodStart: '2026-03-01T00:00:00.000Z' });
    await store.transaction((tx) => usage.addCompute(userId, 5_000, tx));
    await usage.addCompute(userId, 5_000);
    const reached = await ofType(userId, 'usage.limit_reached');
    expect(reached).toHaveLength(1);
    expect(parsed(reached[0]!)).toEqual({ counter: 'compute', used: 13, limit: 10, periodStart: '2026-03-01T00:00:00.000Z' });
    expect(reached[0]!.summary).toBe('Your compute usage reached its limit: 13 of 10 CPU-seconds this period');
    expect(await outbox(newId('user'))).toEqual([]);
  });
});
