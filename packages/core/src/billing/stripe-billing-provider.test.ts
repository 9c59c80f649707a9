import { createServer, type IncomingMessage, type Server } from 'node:http';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import { createSilentLogger } from '../ports/logger.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { listenLocally } from '../testing/listen-locally.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { createMarketplaceServices } from '../marketplace/create-marketplace-services.js';
import { createStrategyService } from '../strategies/strategy-service.js';
import { createBillingServices, stripeBilling } from './create-billing-services.js';
import type { StripeBillingConfig } from './stripe-billing-provider.js';
import { createSandboxPool } from '../backtests/engine/backtest-pool.js';
import { createSandboxStrategyRunner } from '../backtests/sandbox-strategy-runner.js';

/** Inspects listed versions for their verification records (a real sandbox). */
const testRunner = createSandboxStrategyRunner(createSandboxPool({ size: 1 }));
afterAll(() => testRunner.close());

/*
 * The Stripe provider with the real `stripe` client, pointed at a local HTTP server that
 * answers the few endpoints Stratbox uses; webhooks signed with
 * `stripe.webhooks.generateTestHeaderString`. No internet needed.
 */

interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  form: Record<string, string>;
}

type Mode = 'ok' | 'fail' | 'fail-once';

interface FakeInvoice {
  id: string;
  customer: string;
  number: string;
  status: string;
  amount_due: number;
  amount_paid: number;
  currency: string;
  created: number;
  hosted_invoice_url: string;
  invoice_pdf: string;
}

/** A tiny stand-in for api.stripe.com: customers, checkout sessions, billing portal sessions, invoices. */
async function startFakeStripe() {
  const requests: RecordedRequest[] = [];
  const byIdempotencyKey = new Map<string, unknown>();
  const invoices: FakeInvoice[] = [];
  let mode: Mode = 'ok';
  let counter = 0;

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => resolve(body));
    });

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const body = await readBody(req);
    const form = Object.fromEntries(new URLSearchParams(req.method === 'GET' ? url.search : body));
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    requests.push({ method: req.method ?? '', path: url.pathname, idempotencyKey, authorization: req.headers.authorization, form });
    const send = (status: number, data: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++counter}` });
      res.end(JSON.stringify(data));
    };
    if (mode === 'fail' || mode === 'fail-once') {
      if (mode === 'fail-once') mode = 'ok';
      return send(500, { error: { type: 'api_error', message: 'Something went wrong on our end' } });
    }
    if (req.method === 'POST' && idempotencyKey && byIdempotencyKey.has(idempotencyKey)) return send(200, byIdempotencyKey.get(idempotencyKey));
    let data: unknown;
    if (req.method === 'POST' && url.pathname === '/v1/customers') {
      data = { id: `cus_fake${++counter}`, object: 'customer', metadata: { stratboxUserId: form['metadata[stratboxUserId]'] } };
    } else if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const id = `cs_fake${++counter}`;
      data = {
        id,
        object: 'checkout.session',
        mode: form.mode,
        status: 'open',
        payment_status: 'unpaid',
        customer: form.customer,
        url: `https://checkout.stripe.test/c/pay/${id}`,
      };
    } else if (req.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
      data = { id: `bps_fake${++counter}`, object: 'billing_portal.session', customer: form.customer, url: `https://billing.stripe.test/p/session/${counter}` };
    } else if (req.method === 'GET' && url.pathname === '/v1/invoices') {
      const mine = invoices.filter((i) => i.customer === form.customer).sort((a, b) => b.created - a.created);
      const start = form.starting_after ? mine.findIndex((i) => i.id === form.starting_after) + 1 : 0;
      const limit = Number(form.limit ?? 10);
      const page = mine.slice(start, start + limit);
      return send(200, { object: 'list', url: '/v1/invoices', has_more: start + limit < mine.length, data: page.map((i) => ({ object: 'invoice', ...i })) });
    } else {
      return send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname})` } });
    }
    if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, data);
    send(200, data);
  });
  const { port, close } = await listenLocally(server);
  return {
    port,
    requests,
    invoices,
    setMode(next: Mode) {
      mode = next;
    },
    close,
  };
}

/** A free local port: bound, then released. */
async function closedPort(): Promise<number> {
  const { port, close } = await listenLocally(createServer());
  await close();
  return port;
}

const WEBHOOK_SECRET = 'whsec_test_secret_for_stratbox';
const signer = new Stripe('sk_test_signer');

/** A webhook as Stripe sends it: the raw body and its Stripe-Signature header. */
function signed(event: object, options: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  const header = signer.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
  });
  return { rawBody: new TextEncoder().encode(payload), headers: { 'stripe-signature': header } };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const PERIOD_START = Date.UTC(2026, 4, 1) / 1000;
const PERIOD_END = Date.UTC(2026, 5, 1) / 1000;

function subscriptionEvent(
  id: string,
  created: number,
  sub: { id: string; customer: string; userId: string; status?: string; cancelAtPeriodEnd?: boolean; price?: string },
  type = 'customer.subscription.updated',
) {
  return {
    id,
    object: 'event',
    type,
    created,
    livemode: false,
    data: {
      object: {
        id: sub.id,
        object: 'subscription',
        customer: sub.customer,
        status: sub.status ?? 'active',
        cancel_at_period_end: sub.cancelAtPeriodEnd ?? false,
        metadata: { stratboxUserId: sub.userId, tier: 'pro' },
        items: {
          object: 'list',
          data: [{ id: 'si_1', price: { id: sub.price ?? 'price_pro_monthly' }, current_period_start: PERIOD_START, current_period_end: PERIOD_END }],
        },
      },
    },
  };
}

describe('Stripe billing provider (real stripe client, local fake API)', () => {
  let fake: Awaited<ReturnType<typeof startFakeStripe>>;
  let store: Store;
  const clock: Clock = { now: () => new Date() };
  const logger = createSilentLogger();

  const stripeConfig = (overrides: Partial<StripeBillingConfig> = {}): StripeBillingConfig => ({
    apiKey: 'sk_test_fake_key',
    webhookSecret: WEBHOOK_SECRET,
    prices: { pro: 'price_pro_monthly', team: 'price_team_monthly' },
    successUrl: 'https://app.example/billing/done?session={CHECKOUT_SESSION_ID}',
    cancelUrl: 'https://app.example/billing/cancelled',
    host: '127.0.0.1',
    port: fake.port,
    protocol: 'http',
    maxNetworkRetries: 0,
    ...overrides,
  });

  function services(overrides: Partial<StripeBillingConfig> = {}) {
    const billing = createBillingServices({ store, clock, logger, provider: stripeBilling(stripeConfig(overrides)) });
    const marketplace = createMarketplaceServices({ store, clock, logger, billing, strategyRunner: testRunner });
    return { billing, marketplace };
  }

  beforeAll(async () => {
    fake = await startFakeStripe();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    store = createMemoryStore();
    fake.setMode('ok');
    fake.requests.length = 0;
  });
  afterEach(() => store.close());

  it('creates a subscription checkout with an idempotency key, for a customer created once per user', async () => {
    const { billing } = services();
    const userId = newId('user');
    const { url } = await billing.subscriptions.checkout(userId, 'pro');
    expect(url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_fake\d+$/);
    await billing.subscriptions.portal(userId);
    await billing.subscriptions.portal(userId);

    const customers = fake.requests.filter((r) => r.path === '/v1/customers');
    expect(customers).toHaveLength(1);
    expect(customers[0]!.form['metadata[stratboxUserId]']).toBe(userId);
    const [checkout] = fake.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(checkout!.authorization).toBe('Bearer sk_test_fake_key');
    expect(checkout!.idempotencyKey).toMatch(/^stratbox-subscription-checkout-/);
    expect(checkout!.form).toMatchObject({
      mode: 'subscription',
      customer: (await store.billingCustomers.findByUser(userId, 'stripe'))!.customerId,
      client_reference_id: userId,
      'line_items[0][price]': 'price_pro_monthly',
      'line_items[0][quantity]': '1',
      'subscription_data[metadata][tier]': 'pro',
    });
    for (const r of fake.requests.filter((r) => r.method === 'POST')) expect(r.idempotencyKey).toBeTruthy();
  });

  it('checkout.session.completed makes the subscription active; its subscription events then set the renewal date', async () => {
    const { billing } = services();
    const userId = newId('user');
    expect(await billing.subscriptions.get(userId)).toEqual({ tier: 'free', status: 'active', renewalDate: null, cancelAtPeriodEnd: false });
    await billing.subscriptions.checkout(userId, 'pro');
    const customer = (await store.billingCustomers.findByUser(userId, 'stripe'))!.customerId;
    const created = nowSeconds();

    const completed = signed({
      id: 'evt_checkout_1',
      object: 'event',
      type: 'checkout.session.completed',
      created,
      data: {
        object: {
          id: 'cs_x',
          object: 'checkout.session',
          mode: 'subscription',
          status: 'complete',
          payment_status: 'paid',
          customer,
          subscription: 'sub_123',
          client_reference_id: userId,
          metadata: { stratboxUserId: userId, tier: 'pro' },
        },
      },
    });
    expect(await billing.events.handleWebhook(completed.rawBody, completed.headers)).toEqual({ received: true });
    expect(await billing.subscriptions.get(userId)).toEqual({ tier: 'pro', status: 'active', renewalDate: null, cancelAtPeriodEnd: false });
    expect((await billing.usage.get(userId)).backtests.limit).toBe(billing.plans.pro.limits.backtests);

    // The subscription's own event, created a second before the checkout event, still applies.
    const update = signed(subscriptionEvent('evt_sub_1', created - 1, { id: 'sub_123', customer, userId }, 'customer.subscription.created'));
    await billing.events.handleWebhook(update.rawBody, update.headers);
    expect(await billing.subscriptions.get(userId)).toEqual({
      tier: 'pro',
      status: 'active',
      renewalDate: new Date(PERIOD_END * 1000).toISOString(),
      cancelAtPeriodEnd: false,
    });
    // A second checkout while subscribed is a 409.
    await expect(billing.subscriptions.checkout(userId, 'team')).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('a replayed event changes nothing, even after a newer event of the same second', async () => {
    const { billing } = services();
    const userId = newId('user');
    const customer = await billing.provider.ensureCustomer(userId);
    const t = nowSeconds();
    const first = signed(subscriptionEvent('evt_a', t, { id: 'sub_r', customer, userId, status: 'active' }));
    const second = signed(subscriptionEvent('evt_b', t, { id: 'sub_r', customer, userId, status: 'past_due' }));
    await billing.events.handleWebhook(first.rawBody, first.headers);
    await billing.events.handleWebhook(second.rawBody, second.headers);
    expect((await billing.subscriptions.get(userId)).status).toBe('past_due');
    const before = await store.subscriptions.findByUser(userId);
    // Stripe redelivers evt_a (same id, same second): processed once, so it changes nothing.
    const replay = signed(subscriptionEvent('evt_a', t, { id: 'sub_r', customer, userId, status: 'active' }));
    expect(await billing.events.handleWebhook(replay.rawBody, replay.headers)).toEqual({ received: true });
    expect(await store.subscriptions.findByUser(userId)).toEqual(before);
  });

  it('an older event after a newer one changes nothing', async () => {
    const { billing } = services();
    const userId = newId('user');
    const customer = await billing.provider.ensureCustomer(userId);
    const t = nowSeconds();
    const newer = signed(subscriptionEvent('evt_new', t, { id: 'sub_o', customer, userId, cancelAtPeriodEnd: true }));
    const older = signed(subscriptionEvent('evt_old', t - 60, { id: 'sub_o', customer, userId, status: 'incomplete', cancelAtPeriodEnd: false }));
    await billing.events.handleWebhook(newer.rawBody, newer.headers);
    const before = await billing.subscriptions.get(userId);
    expect(before).toMatchObject({ tier: 'pro', status: 'active', cancelAtPeriodEnd: true });
    await billing.events.handleWebhook(older.rawBody, older.headers);
    expect(await billing.subscriptions.get(userId)).toEqual(before);
    // A deletion that is newer does apply: the user is back on free limits.
    const deleted = signed(subscriptionEvent('evt_del', t + 1, { id: 'sub_o', customer, userId, status: 'canceled' }, 'customer.subscription.deleted'));
    await billing.events.handleWebhook(deleted.rawBody, deleted.headers);
    expect(await billing.subscriptions.get(userId)).toMatchObject({ tier: 'pro', status: 'canceled', renewalDate: null });
    expect((await billing.usage.get(userId)).backtests.limit).toBe(billing.plans.free.limits.backtests);
  });

  it('a bad signature is VALIDATION_FAILED (400) and changes nothing', async () => {
    const { billing } = services();
    const userId = newId('user');
    const customer = await billing.provider.ensureCustomer(userId);
    const event = subscriptionEvent('evt_sig', nowSeconds(), { id: 'sub_s', customer, userId });
    const good = signed(event);
    const attempts = [
      { rawBody: good.rawBody, headers: {} },
      { rawBody: good.rawBody, headers: { 'stripe-signature': 't=1,v1=deadbeef' } },
      signed(event, { secret: 'whsec_someone_else' }),
      { rawBody: new TextEncoder().encode(JSON.stringify({ ...event, id: 'evt_tampered' })), headers: good.headers },
      signed(event, { timestamp: nowSeconds() - 301 }),
    ];
    for (const attempt of attempts) {
      const error = await billing.events.handleWebhook(attempt.rawBody, attempt.headers).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StratboxError);
      expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, message: 'Invalid webhook signature' });
    }
    expect(await store.subscriptions.findByUser(userId)).toBeNull();
    // Within the 300 s tolerance it is accepted.
    const recent = signed(event, { timestamp: nowSeconds() - 200 });
    await billing.events.handleWebhook(recent.rawBody, recent.headers);
    expect((await billing.subscriptions.get(userId)).tier).toBe('pro');
  });

  /** A signed `checkout.session.expired` event of a purchase's checkout. */
  function expiredCheckout(eventId: string, sessionId: string, purchaseId: string) {
    return signed({
      id: eventId,
      object: 'event',
      type: 'checkout.session.expired',
      created: nowSeconds(),
      data: { object: { id: sessionId, object: 'checkout.session', mode: 'payment', status: 'expired', payment_status: 'unpaid', metadata: { purchaseId } } },
    });
  }

  async function paidListing(sellerId: string) {
    const now = new Date().toISOString();
    const listing = {
      id: newId('listing'),
      sellerId,
      strategyId: newId('strategy'),
      strategyVersion: 1,
      name: 'Mean reversion',
      description: '',
      price: 2_500,
      tags: [],
      ratingSum: 0,
      reviewCount: 0,
      purchaseCount: 0,
      status: 'listed' as const,
      createdAt: now,
      updatedAt: now,
    };
    await store.listings.insert(listing);
    return listing;
  }

  it('a paid purchase is pending with a Checkout URL until checkout.session.completed confirms it', async () => {
    const { billing, marketplace } = services();
    const buyer = newId('user');
    const listing = await paidListing(newId('user'));
    const pending = await marketplace.purchases.purchase(buyer, listing.id);
    expect(pending).toMatchObject({ status: 'pending', price: 2_500, listingId: listing.id });
    expect(pending.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.test\//);
    const [session] = fake.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(session!.idempotencyKey).toBe(`stratbox-purchase-${pending.id}`);
    expect(session!.form).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][unit_amount]': '2500',
      'line_items[0][price_data][currency]': 'usd',
      'metadata[purchaseId]': pending.id,
    });
    await expect(marketplace.purchases.purchase(buyer, listing.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(marketplace.licences.resolve(buyer, listing.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const paid = signed({
      id: 'evt_paid',
      object: 'event',
      type: 'checkout.session.completed',
      created: nowSeconds(),
      data: {
        object: { id: 'cs_p', object: 'checkout.session', mode: 'payment', status: 'complete', payment_status: 'paid', metadata: { purchaseId: pending.id } },
      },
    });
    await billing.events.handleWebhook(paid.rawBody, paid.headers);
    await billing.events.handleWebhook(paid.rawBody, paid.headers);
    expect((await marketplace.purchases.list(buyer, {})).purchases).toEqual([{ ...pending, status: 'completed', checkoutUrl: null }]);
    expect((await store.listings.findById(listing.id))?.purchaseCount).toBe(1);
    expect(await marketplace.licences.resolve(buyer, listing.id)).toMatchObject({ canReadSource: false, ownerId: listing.sellerId });
  });

  it('an expired checkout fails the purchase, which can then be bought again', async () => {
    const { billing, marketplace } = services();
    const buyer = newId('user');
    const listing = await paidListing(newId('user'));
    const pending = await marketplace.purchases.purchase(buyer, listing.id);
    const expired = expiredCheckout('evt_expired', 'cs_e', pending.id);
    await billing.events.handleWebhook(expired.rawBody, expired.headers);
    expect((await marketplace.purchases.list(buyer, {})).purchases[0]).toMatchObject({ id: pending.id, status: 'failed', checkoutUrl: null });
    const again = await marketplace.purchases.purchase(buyer, listing.id);
    expect(again).toMatchObject({ status: 'pending' });
    expect((await marketplace.purchases.list(buyer, {})).purchases.map((p) => p.id)).toEqual([again.id]);
  });

  it('a strategy whose purchase is being paid cannot be deleted; once the checkout expired it can', async () => {
    const { billing, marketplace } = services();
    const strategies = createStrategyService({ store, clock });
    const [seller, buyer] = [newId('user'), newId('user')];
    const strategy = await strategies.create(seller, { name: 'Edge', description: '', source: 'export function onCandle() {}', marketType: 'LINEAR' });
    const listing = await marketplace.listings.create(seller, { strategyId: strategy.id, name: 'Edge', description: '', price: 2_500, tags: [] });
    const pending = await marketplace.purchases.purchase(buyer, listing.id);
    expect(pending.status).toBe('pending');
    await marketplace.listings.unlist(seller, listing.id);
    await expect(strategies.delete(seller, strategy.id)).rejects.toMatchObject({ code: 'CONFLICT', details: { pendingPurchases: 1 } });

    const expired = expiredCheckout('evt_expired_delete', 'cs_d', pending.id);
    await billing.events.handleWebhook(expired.rawBody, expired.headers);
    await strategies.delete(seller, strategy.id);
    await expect(strategies.get(seller, strategy.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('Stripe answering 500 is UNAVAILABLE (503) and leaves no purchase behind; it works once Stripe is back', async () => {
    const { marketplace, billing } = services();
    const buyer = newId('user');
    const listing = await paidListing(newId('user'));
    fake.setMode('fail');
    const error = await marketplace.purchases.purchase(buyer, listing.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StratboxError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', status: 503, message: 'The payment provider is unavailable; try again later' });
    expect(await store.purchases.findByListing(buyer, listing.id)).toBeNull();
    expect(await store.billingCustomers.findByUser(buyer, 'stripe')).toBeNull();
    expect((await store.listings.findById(listing.id))?.purchaseCount).toBe(0);
    await expect(billing.subscriptions.checkout(buyer, 'pro')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(billing.subscriptions.portal(buyer)).rejects.toMatchObject({ code: 'UNAVAILABLE' });

    fake.setMode('ok');
    expect(await marketplace.purchases.purchase(buyer, listing.id)).toMatchObject({ status: 'pending' });
  });

  it('connection refused is UNAVAILABLE (503) and leaves nothing behind', async () => {
    const { marketplace, billing } = services({ port: await closedPort() });
    const buyer = newId('user');
    const listing = await paidListing(newId('user'));
    await expect(marketplace.purchases.purchase(buyer, listing.id)).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    expect(await store.purchases.list(buyer, { limit: 10 })).toEqual([]);
    expect(await store.billingCustomers.findByUser(buyer, 'stripe')).toBeNull();
    await expect(billing.subscriptions.invoices(buyer, {})).resolves.toEqual({ invoices: [], nextCursor: null });
  });

  it("the client's retry after a 500 reuses the idempotency key", async () => {
    const { marketplace } = services({ maxNetworkRetries: 1 });
    const buyer = newId('user');
    const listing = await paidListing(newId('user'));
    await marketplace.purchases.purchase(buyer, listing.id); // creates the customer
    fake.requests.length = 0;
    await store.purchases.deleteIf(buyer, (await store.purchases.findByListing(buyer, listing.id))!.id, ['pending']);
    fake.setMode('fail-once');
    const purchase = await marketplace.purchases.purchase(buyer, listing.id);
    const attempts = fake.requests.filter((r) => r.path === '/v1/checkout/sessions');
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.idempotencyKey).toBe(`stratbox-purchase-${purchase.id}`);
    expect(attempts[1]!.idempotencyKey).toBe(attempts[0]!.idempotencyKey);
  });

  it("lists the user's invoices with hosted and PDF URLs, page by page; none for a user without a customer", async () => {
    const { billing } = services();
    const alice = newId('user');
    const bob = newId('user');
    expect(await billing.subscriptions.invoices(alice, {})).toEqual({ invoices: [], nextCursor: null });
    const customer = await billing.provider.ensureCustomer(alice);
    await billing.provider.ensureCustomer(bob);
    for (let i = 1; i <= 3; i++) {
      fake.invoices.push({
        id: `in_${i}_${customer}`,
        customer,
        number: `INV-000${i}`,
        status: 'paid',
        amount_due: 2_900,
        amount_paid: 2_900,
        currency: 'usd',
        created: PERIOD_START + i * 86_400,
        hosted_invoice_url: `https://invoice.stripe.test/i/${i}`,
        invoice_pdf: `https://pay.stripe.test/invoice/${i}/pdf`,
      });
    }
    const first = await billing.subscriptions.invoices(alice, { limit: 2 });
    expect(first.invoices).toEqual([
      {
        id: `in_3_${customer}`,
        number: 'INV-0003',
        status: 'paid',
        amountDue: 2_900,
        amountPaid: 2_900,
        currency: 'usd',
        createdAt: new Date((PERIOD_START + 3 * 86_400) * 1000).toISOString(),
        hostedUrl: 'https://invoice.stripe.test/i/3',
        pdfUrl: 'https://pay.stripe.test/invoice/3/pdf',
      },
      expect.objectContaining({ number: 'INV-0002' }),
    ]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await billing.subscriptions.invoices(alice, { limit: 2, cursor: first.nextCursor! });
    expect(second.invoices.map((i) => i.number)).toEqual(['INV-0001']);
    expect(second.nextCursor).toBeNull();
    expect(await billing.subscriptions.invoices(bob, {})).toEqual({ invoices: [], nextCursor: null });
    await expect(billing.subscriptions.invoices(alice, { cursor: 'bogus' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
