import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StratboxClientError, type StratboxClient } from '@stratbox/client';
import { createLocalBillingProvider, createMemoryStore, localBilling, type BillingEvent, type StratboxConfig } from '@stratbox/core';
import { startTestService, type TestService } from './harness/in-process.js';
import { expectError } from './harness/client-errors.js';

/*
 * Billing over real HTTP with the local provider: the free default, checkout, portal,
 * invoices, usage, the signed webhook (bad signature 400, replay and older events change
 * nothing), BOLA, and the backtest allowance under 20 concurrent creates.
 */

const WEBHOOK_SECRET = 'local-webhook-secret-for-tests';
/** Signs events exactly as the service's local provider verifies them (same secret). */
const signer = createLocalBillingProvider({ store: createMemoryStore(), clock: { now: () => new Date() }, webhookSecret: WEBHOOK_SECRET });

type User = { userId: string; apiKey: string; client: StratboxClient };

const SOURCE = 'export const meta = { timeframe: "1h" };\nexport function onCandle(ctx, c) {}\n';

describe('billing over HTTP (local provider)', () => {
  let service: TestService;
  let alice: User;
  let bob: User;

  const config = {
    billing: { provider: localBilling({ webhookSecret: WEBHOOK_SECRET }), plans: { free: { limits: { backtests: 5 } } } },
  } as Omit<StratboxConfig, 'store'>;

  const postWebhook = (body: string, headers: Record<string, string>) =>
    fetch(`${service.baseUrl}/api/billing/webhook`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  beforeAll(async () => {
    service = await startTestService(config);
    alice = await service.newUser('alice');
    bob = await service.newUser('bob');
  });
  afterAll(() => service.close());

  it('answers free/active for a user without a subscription, with the free limits', async () => {
    expect(await alice.client.billing.subscription()).toEqual({ tier: 'free', status: 'active', renewalDate: null, cancelAtPeriodEnd: false });
    const usage = await alice.client.billing.usage();
    expect(usage).toEqual({
      compute: { used: 0, limit: expect.any(Number) },
      backtests: { used: 0, limit: 5 },
      deployments: { used: 0, limit: expect.any(Number) },
    });
    expect(await alice.client.billing.invoices()).toEqual({ invoices: [], nextCursor: null });
  });

  it('checkout completes at once (local provider): pro/active with a renewal date, an invoice, a portal', async () => {
    const { url } = await alice.client.billing.checkout({ body: { tier: 'pro' } });
    expect(url).toEqual(expect.any(String));
    const subscription = await alice.client.billing.subscription();
    expect(subscription).toMatchObject({ tier: 'pro', status: 'active', cancelAtPeriodEnd: false });
    expect(Date.parse(subscription.renewalDate!)).toBeGreaterThan(Date.now() + 27 * 86_400_000);
    expect((await alice.client.billing.usage()).backtests.limit).toBeGreaterThan(5);
    const invoices = await alice.client.billing.invoices();
    expect(invoices.invoices).toEqual([expect.objectContaining({ status: 'paid', amountPaid: 2_900, currency: 'usd', pdfUrl: expect.any(String) })]);
    await expectError(alice.client.billing.checkout({ body: { tier: 'team' } }), 409, 'CONFLICT');
    await expectError(alice.client.billing.checkout({ body: { tier: 'free' as 'pro' } }), 400, 'VALIDATION_FAILED');
    expect((await alice.client.billing.portal({ body: {} })).url).toEqual(expect.any(String));
  });

  it('the webhook refuses a missing or bad signature with 400, and applies a signed event once', async () => {
    const record = await service.stratbox.store.subscriptions.findByUser(alice.userId);
    const event: BillingEvent = {
      id: `evt_local_${Date.now()}`,
      created: new Date().toISOString(),
      type: 'subscription.updated',
      data: {
        userId: alice.userId,
        customerId: record!.customerId,
        subscriptionId: record!.subscriptionId,
        tier: 'pro',
        status: 'active',
        currentPeriodStart: record!.currentPeriodStart,
        currentPeriodEnd: record!.currentPeriodEnd,
        cancelAtPeriodEnd: true,
      },
    };
    const signed = signer.signEvent(event);

    const missing = await postWebhook(signed.body, {});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    const tampered = await postWebhook(signed.body.replace('"cancelAtPeriodEnd":true', '"cancelAtPeriodEnd":false'), signed.headers);
    expect(tampered.status).toBe(400);
    const forged = createLocalBillingProvider({ store: createMemoryStore(), clock: { now: () => new Date() }, webhookSecret: 'not-the-secret' }).signEvent(
      event,
    );
    expect((await postWebhook(forged.body, forged.headers)).status).toBe(400);
    expect((await alice.client.billing.subscription()).cancelAtPeriodEnd).toBe(false);

    const ok = await postWebhook(signed.body, signed.headers);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ received: true });
    expect((await alice.client.billing.subscription()).cancelAtPeriodEnd).toBe(true);

    // An older event after it changes nothing; a replay of an event changes nothing.
    const older = signer.signEvent({
      ...event,
      id: `${event.id}_old`,
      created: new Date(Date.now() - 60_000).toISOString(),
      data: { ...event.data, cancelAtPeriodEnd: false },
    });
    expect((await postWebhook(older.body, older.headers)).status).toBe(200);
    expect((await alice.client.billing.subscription()).cancelAtPeriodEnd).toBe(true);
    const resume = signer.signEvent({ ...event, id: `${event.id}_resume`, data: { ...event.data, cancelAtPeriodEnd: false } });
    expect((await postWebhook(resume.body, resume.headers)).status).toBe(200);
    expect((await alice.client.billing.subscription()).cancelAtPeriodEnd).toBe(false);
    const replay = signer.signEvent(event); // same id, same created, freshly signed
    expect((await postWebhook(replay.body, replay.headers)).status).toBe(200);
    expect((await alice.client.billing.subscription()).cancelAtPeriodEnd).toBe(false);
  });

  it("BOLA: user B sees none of A's subscription, invoices or usage", async () => {
    expect(await bob.client.billing.subscription()).toEqual({ tier: 'free', status: 'active', renewalDate: null, cancelAtPeriodEnd: false });
    expect(await bob.client.billing.invoices()).toEqual({ invoices: [], nextCursor: null });
    expect((await bob.client.billing.usage()).backtests).toEqual({ used: 0, limit: 5 });
  });

  it('20 parallel backtest creates against an allowance of 5 create exactly 5; the rest are 402 and create nothing', async () => {
    const carol = await service.newUser('carol');
    const strategy = await carol.client.strategies.create({ body: { name: 'Quiet', description: '', source: SOURCE, marketType: 'LINEAR' } });
    const body = { strategyId: strategy.id, symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-01-02' };
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => carol.client.backtests.create({ body })));
    const created = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(created).toHaveLength(5);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      const error = r.reason as StratboxClientError;
      expect(error).toBeInstanceOf(StratboxClientError);
      expect(error.status).toBe(402);
      expect(error.code).toBe('PLAN_LIMIT_EXCEEDED');
      expect(error.details).toEqual({ counter: 'backtests', used: 5, limit: 5 });
    }
    const listed = await carol.client.backtests.list({ query: { limit: 200 } });
    expect(listed.backtests).toHaveLength(5);
    expect((await carol.client.billing.usage()).backtests).toEqual({ used: 5, limit: 5 });
    // Another user's allowance is untouched.
    expect((await bob.client.billing.usage()).backtests.used).toBe(0);
  });
});
