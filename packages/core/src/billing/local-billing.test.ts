import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../ports/logger.js';
import type { Clock } from '../ports/clock.js';
import type { BillingEvent } from '../ports/billing-provider.js';
import type { Store } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { createBillingServices } from './create-billing-services.js';
import { createLocalBillingProvider, type LocalBillingProvider } from './local-billing-provider.js';
import { addMonthsUtc, calendarMonth, periodContaining } from './periods.js';
import { PLANS, resolvePlans } from './plans.js';

/** A clock the test moves. */
function testClock(start = '2026-03-15T12:00:00.000Z') {
  let now = new Date(start);
  const clock: Clock & { set(iso: string): void } = {
    now: () => new Date(now),
    set(iso: string) {
      now = new Date(iso);
    },
  };
  return clock;
}

describe('plans and periods', () => {
  it('has one documented plan table with increasing limits', () => {
    expect(PLANS.free).toEqual({
      tier: 'free',
      name: 'Free',
      priceUsdCents: 0,
      limits: { deployments: 1, backtests: 50, computeSeconds: 1_800, trialsPerOptimization: 1_000, notificationChannels: 3 },
    });
    expect(PLANS.pro.priceUsdCents).toBe(2_900);
    expect(PLANS.team.priceUsdCents).toBe(9_900);
    for (const key of ['deployments', 'backtests', 'computeSeconds', 'notificationChannels'] as const) {
      expect(PLANS.free.limits[key]).toBeLessThan(PLANS.pro.limits[key]);
      expect(PLANS.pro.limits[key]).toBeLessThan(PLANS.team.limits[key]);
    }
    const custom = resolvePlans({ free: { limits: { backtests: 5 } }, team: { priceUsdCents: 1 } });
    expect(custom.free.limits).toEqual({ ...PLANS.free.limits, backtests: 5 });
    expect(custom.team.priceUsdCents).toBe(1);
    expect(PLANS.free.limits.backtests).toBe(50);
  });

  it('uses the calendar month, the current period, and rolls a lapsed period forward by months', () => {
    expect(calendarMonth(new Date('2026-02-28T23:59:59.999Z'))).toEqual({ start: '2026-02-01T00:00:00.000Z', end: '2026-03-01T00:00:00.000Z' });
    expect(addMonthsUtc(new Date('2026-01-31T10:00:00.000Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    const start = '2026-01-10T08:00:00.000Z';
    const end = '2026-02-10T08:00:00.000Z';
    expect(periodContaining(start, end, new Date('2026-01-20T00:00:00.000Z'))).toEqual({ start, end });
    expect(periodContaining(start, end, new Date('2026-04-11T00:00:00.000Z'))).toEqual({ start: '2026-04-10T08:00:00.000Z', end: '2026-05-10T08:00:00.000Z' });
    expect(periodContaining(null, null, new Date('2026-04-11T00:00:00.000Z'))).toEqual(calendarMonth(new Date('2026-04-11T00:00:00.000Z')));
  });
});

describe('billing with the local provider', () => {
  let store: Store;
  let clock: ReturnType<typeof testClock>;
  const logger = createSilentLogger();

  beforeEach(() => {
    store = createMemoryStore();
    clock = testClock();
  });
  afterEach(() => store.close());

  const setup = (plans?: Parameters<typeof createBillingServices>[0]['plans']) => {
    const provider = createLocalBillingProvider({ store, clock, webhookSecret: 'local-secret' });
    return createBillingServices({ store, clock, logger, provider, ...(plans ? { plans } : {}) });
  };

  it('answers free/active for a user without a subscription, and checkout completes at once with an invoice', async () => {
    const { subscriptions, usage, plans } = setup();
    const userId = newId('user');
    expect(await subscriptions.get(userId)).toEqual({ tier: 'free', status: 'active', renewalDate: null, cancelAtPeriodEnd: false });
    expect(await usage.get(userId)).toEqual({
      compute: { used: 0, limit: plans.free.limits.computeSeconds },
      backtests: { used: 0, limit: plans.free.limits.backtests },
      deployments: { used: 0, limit: plans.free.limits.deployments },
    });
    expect(await subscriptions.invoices(userId, {})).toEqual({ invoices: [], nextCursor: null });

    const { url } = await subscriptions.checkout(userId, 'pro');
    expect(url).toMatch(/^http:\/\/localhost\/stratbox-billing\/checkout\/cs_local_/);
    expect(await subscriptions.get(userId)).toEqual({ tier: 'pro', status: 'active', renewalDate: '2026-04-15T12:00:00.000Z', cancelAtPeriodEnd: false });
    expect((await usage.get(userId)).backtests.limit).toBe(plans.pro.limits.backtests);
    const { invoices } = await subscriptions.invoices(userId, {});
    expect(invoices).toEqual([
      expect.objectContaining({ status: 'paid', amountDue: 2_900, amountPaid: 2_900, currency: 'usd', createdAt: '2026-03-15T12:00:00.000Z' }),
    ]);
    expect(invoices[0]!.pdfUrl).toMatch(/\.pdf$/);
    await expect(subscriptions.checkout(userId, 'team')).rejects.toMatchObject({ code: 'CONFLICT', status: 409 });
    expect((await subscriptions.portal(userId)).url).toMatch(/\/portal\/cus_local_/);
    // Another user sees none of it.
    expect(await subscriptions.invoices(newId('user'), {})).toEqual({ invoices: [], nextCursor: null });
  });

  it('accepts its own signed events once, ignores older ones, and refuses a bad signature', async () => {
    const { provider, subscriptions, events } = setup();
    const userId = newId('user');
    await subscriptions.checkout(userId, 'pro');
    const record = (await store.subscriptions.findByUser(userId))!;
    const cancel: BillingEvent = {
      id: 'evt_local_cancel',
      created: '2026-03-20T00:00:00.000Z',
      type: 'subscription.updated',
      data: {
        userId,
        customerId: record.customerId,
        subscriptionId: record.subscriptionId,
        tier: 'pro',
        status: 'active',
        currentPeriodStart: record.currentPeriodStart,
        currentPeriodEnd: record.currentPeriodEnd,
        cancelAtPeriodEnd: true,
      },
    };
    const webhook = (provider as LocalBillingProvider).signEvent(cancel);
    const body = new TextEncoder().encode(webhook.body);
    await events.handleWebhook(body, webhook.headers);
    expect(await subscriptions.get(userId)).toMatchObject({ cancelAtPeriodEnd: true });

    const older = (provider as LocalBillingProvider).signEvent({
      ...cancel,
      id: 'evt_local_old',
      created: '2026-03-16T00:00:00.000Z',
      data: { ...cancel.data, cancelAtPeriodEnd: false },
    });
    await events.handleWebhook(new TextEncoder().encode(older.body), older.headers);
    expect(await subscriptions.get(userId)).toMatchObject({ cancelAtPeriodEnd: true });

    const tampered = webhook.body.replace('"cancelAtPeriodEnd":true', '"cancelAtPeriodEnd":false');
    await expect(events.handleWebhook(new TextEncoder().encode(tampered), webhook.headers)).rejects.toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    await expect(events.handleWebhook(body, {})).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    clock.set('2026-03-15T12:05:01.000Z');
    await expect(events.handleWebhook(body, webhook.headers)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('reserves exactly 5 of 20 concurrent backtests against an allowance of 5, and refuses with details', async () => {
    const { usage } = setup({ free: { limits: { backtests: 5 } } });
    const userId = newId('user');
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => usage.reserveBacktest(userId)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.reason).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', status: 402, details: { counter: 'backtests', used: 5, limit: 5 } });
    }
    expect((await usage.get(userId)).backtests).toEqual({ used: 5, limit: 5 });
    await usage.releaseBacktest(userId);
    await usage.reserveBacktest(userId);
    // A new calendar month starts from zero.
    clock.set('2026-04-01T00:00:00.000Z');
    expect((await usage.get(userId)).backtests).toEqual({ used: 0, limit: 5 });
  });

  it('meters compute in CPU-seconds and refuses backtests once none is left', async () => {
    const { usage } = setup({ free: { limits: { computeSeconds: 10 } } });
    const userId = newId('user');
    await usage.addCompute(userId, 4_400.4);
    await usage.addCompute(userId, 0);
    await usage.addCompute(userId, Number.NaN);
    expect((await usage.get(userId)).compute).toEqual({ used: 4, limit: 10 });
    await usage.reserveBacktest(userId);
    await usage.addCompute(userId, 5_600);
    expect((await usage.get(userId)).compute).toEqual({ used: 10, limit: 10 });
    await expect(usage.reserveBacktest(userId)).rejects.toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', details: { counter: 'compute', used: 10, limit: 10 } });
  });

  it('counts a paid subscription over its own period, and checks the live bot limit', async () => {
    const { usage, subscriptions, plans } = setup();
    const userId = newId('user');
    await usage.reserveBacktest(userId); // free, March
    await subscriptions.checkout(userId, 'pro'); // period 2026-03-15 .. 2026-04-15
    expect((await usage.get(userId)).backtests).toEqual({ used: 0, limit: plans.pro.limits.backtests });
    await usage.reserveBacktest(userId);
    clock.set('2026-04-14T00:00:00.000Z');
    expect((await usage.get(userId)).backtests.used).toBe(1);
    clock.set('2026-04-16T00:00:00.000Z');
    expect((await usage.get(userId)).backtests.used).toBe(0);

    const now = clock.now().toISOString();
    for (let i = 0; i < plans.pro.limits.deployments; i++) {
      await usage.assertDeploymentSlot(userId);
      await store.deployments.insert({
        id: newId('deployment'),
        userId,
        strategyId: newId('strategy'),
        strategyVersion: 1,
        credentialId: newId('credential'),
        symbols: ['BTC/USDT:USDT'],
        params: {},
        status: 'running',
        error: null,
        createdAt: now,
        updatedAt: now,
        startedAt: now,
        stoppedAt: null,
      });
    }
    await expect(usage.assertDeploymentSlot(userId)).rejects.toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      details: { counter: 'deployments', used: plans.pro.limits.deployments, limit: plans.pro.limits.deployments },
    });
    expect((await usage.get(userId)).deployments).toEqual({ used: plans.pro.limits.deployments, limit: plans.pro.limits.deployments });
  });
});
