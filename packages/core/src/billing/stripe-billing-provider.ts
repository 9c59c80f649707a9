import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { StratboxError } from '../errors/stratbox-error.js';
import type { BillingEvent, BillingProvider, ProviderInvoice, SubscriptionEventStatus, SubscriptionState } from '../ports/billing-provider.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { PaidTierName } from './plans.js';
import { providerCall } from './provider-errors.js';

export interface StripeBillingConfig {
  /** Secret API key (`sk_live_...` / `sk_test_...`). Never logged. */
  apiKey: string;
  /** Signing secret of the webhook endpoint (`whsec_...`). */
  webhookSecret: string;
  /** The Stripe price id of each paid tier (recurring, monthly). */
  prices: Record<PaidTierName, string>;
  /** Where Checkout sends the user after paying; `{CHECKOUT_SESSION_ID}` is filled in by Stripe. */
  successUrl: string;
  /** Where Checkout sends the user who gives up. */
  cancelUrl: string;
  /** Where the Customer Portal's "return" link leads (default: `successUrl` without its query). */
  portalReturnUrl?: string;
  /** How old a signed webhook may be, in seconds (default 300). */
  webhookToleranceSeconds?: number;
  /** Retries of failed network calls by the Stripe client, with the same idempotency key (default 2). */
  maxNetworkRetries?: number;
  /** Per-request timeout in ms (default 20,000). */
  timeoutMs?: number;
  /** Point the client elsewhere, e.g. a local test server: `{ host: '127.0.0.1', port: 12111, protocol: 'http' }`. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

export interface StripeBillingDeps {
  store: Store;
  clock: Clock;
  logger?: Logger;
}

const PROVIDER = 'stripe';

const idOf = (value: string | { id: string } | null | undefined): string | null => (value == null ? null : typeof value === 'string' ? value : value.id);

const iso = (unixSeconds: number | null | undefined): string | null =>
  typeof unixSeconds === 'number' && Number.isFinite(unixSeconds) ? new Date(unixSeconds * 1000).toISOString() : null;

const STATUSES: readonly SubscriptionEventStatus[] = ['active', 'trialing', 'past_due', 'canceled', 'incomplete', 'unpaid', 'paused'];

function statusOf(status: string): SubscriptionEventStatus {
  if (status === 'incomplete_expired') return 'canceled';
  return (STATUSES as readonly string[]).includes(status) ? (status as SubscriptionEventStatus) : 'incomplete';
}

/** Opaque invoice cursor: the last invoice id of the page. */
const encodeInvoiceCursor = (id: string) => Buffer.from(JSON.stringify(['stripe-invoice', id])).toString('base64url');
function decodeInvoiceCursor(cursor: string): string {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value[0] === 'stripe-invoice' && typeof value[1] === 'string' && value[1] !== '') return value[1];
  } catch {
    // fall through
  }
  throw new StratboxError('VALIDATION_FAILED', 'Invalid cursor', [{ path: 'cursor', message: 'Not a cursor this API issued' }]);
}

/**
 * The BillingProvider on Stripe (the `stripe` package): Checkout Sessions in `subscription`
 * mode for plans and in `payment` mode for marketplace purchases, the Customer Portal, and the
 * customer's invoices with their hosted and PDF URLs. Every create carries an idempotency key;
 * the Stripe client retries network failures with the same key. Webhooks are verified with
 * `stripe.webhooks.constructEvent` (tolerance 300 s) and normalized:
 *
 * | Stripe event | Stratbox event |
 * |---|---|
 * | `checkout.session.completed` (subscription mode) | `subscription.checkout_completed` |
 * | `checkout.session.completed` / `async_payment_succeeded` (payment mode, paid) | `purchase.completed` |
 * | `checkout.session.expired` / `async_payment_failed` (payment mode) | `purchase.failed` |
 * | `customer.subscription.*` (created, updated, deleted, paused, resumed, ...) | `subscription.updated` |
 * | anything else | `ignored` |
 *
 * The tier of a subscription comes from its price (`prices`), else from its `tier` metadata.
 */
export function createStripeBillingProvider(config: StripeBillingConfig & StripeBillingDeps): BillingProvider {
  const { store, clock, logger } = config;
  // The `stripe` package is loaded on first use, not when core is imported (nor its types: the
  // declarations of this function name none of Stripe's, so consumers never type-check them).
  let client: Promise<Stripe> | undefined;
  const stripeClient = (): Promise<Stripe> =>
    (client ??= import('stripe').then(
      ({ default: StripeClient }) =>
        new StripeClient(config.apiKey, {
          maxNetworkRetries: config.maxNetworkRetries ?? 2,
          timeout: config.timeoutMs ?? 20_000,
          telemetry: false,
          appInfo: { name: 'Stratbox' },
          ...(config.host !== undefined ? { host: config.host } : {}),
          ...(config.port !== undefined ? { port: config.port } : {}),
          ...(config.protocol !== undefined ? { protocol: config.protocol } : {}),
        }),
    ));
  const tolerance = config.webhookToleranceSeconds ?? 300;
  const portalReturnUrl = config.portalReturnUrl ?? config.successUrl.split('?')[0]!;
  const tierOfPrice = new Map<string, PaidTierName>(Object.entries(config.prices).map(([tier, price]) => [price, tier as PaidTierName]));
  const parseTier = (value: unknown): PaidTierName | null => (value === 'pro' || value === 'team' ? value : null);

  async function ensureCustomer(userId: string): Promise<string> {
    const existing = await store.billingCustomers.findByUser(userId, PROVIDER);
    if (existing) return existing.customerId;
    const stripe = await stripeClient();
    // A key per attempt: the client's own retries reuse it; a later attempt after a failure gets
    // a fresh one (Stripe replays a key's first result, 500s included, for 24 hours). Two racing
    // first calls may create two customers at Stripe; the Store keeps the first and both agree.
    const customer = await providerCall(logger, 'customers.create', () =>
      stripe.customers.create({ metadata: { stratboxUserId: userId } }, { idempotencyKey: `stratbox-customer-${userId}-${randomUUID()}` }),
    );
    const stored = await store.billingCustomers.insertIfAbsent({ userId, provider: PROVIDER, customerId: customer.id, createdAt: clock.now().toISOString() });
    return stored.customerId;
  }

  function subscriptionState(sub: Stripe.Subscription, forceStatus?: SubscriptionEventStatus): SubscriptionState | null {
    const item = sub.items?.data?.[0];
    const tier = (item?.price?.id ? tierOfPrice.get(item.price.id) : undefined) ?? parseTier(sub.metadata?.tier);
    if (!tier) return null;
    const legacy = sub as unknown as { current_period_start?: number; current_period_end?: number };
    return {
      userId: sub.metadata?.stratboxUserId ?? null,
      customerId: idOf(sub.customer),
      subscriptionId: sub.id,
      tier,
      status: forceStatus ?? statusOf(sub.status),
      currentPeriodStart: iso(item?.current_period_start ?? legacy.current_period_start),
      currentPeriodEnd: iso(item?.current_period_end ?? legacy.current_period_end),
      cancelAtPeriodEnd: sub.cancel_at_period_end === true,
    };
  }

  function normalize(event: Stripe.Event): BillingEvent {
    const base = { id: event.id, created: iso(event.created) ?? clock.now().toISOString() };
    const ignored = (): BillingEvent => ({ ...base, type: 'ignored', data: { providerType: event.type } });
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded': {
        const session = event.data.object as Stripe.Checkout.Session;
        if (session.mode === 'subscription' && event.type === 'checkout.session.completed') {
          const subscriptionId = idOf(session.subscription);
          if (!subscriptionId) return ignored();
          return {
            ...base,
            type: 'subscription.checkout_completed',
            data: {
              userId: session.client_reference_id ?? session.metadata?.stratboxUserId ?? null,
              customerId: idOf(session.customer),
              subscriptionId,
              tier: parseTier(session.metadata?.tier),
            },
          };
        }
        const purchaseId = session.metadata?.purchaseId;
        if (session.mode === 'payment' && purchaseId && (session.payment_status === 'paid' || session.payment_status === 'no_payment_required')) {
          return { ...base, type: 'purchase.completed', data: { purchaseId, sessionId: session.id } };
        }
        return ignored();
      }
      case 'checkout.session.expired':
      case 'checkout.session.async_payment_failed': {
        const session = event.data.object as Stripe.Checkout.Session;
        const purchaseId = session.metadata?.purchaseId;
        if (session.mode === 'payment' && purchaseId) return { ...base, type: 'purchase.failed', data: { purchaseId, sessionId: session.id } };
        return ignored();
      }
      default: {
        if (!event.type.startsWith('customer.subscription.')) return ignored();
        const sub = event.data.object as Stripe.Subscription;
        const state = subscriptionState(sub, event.type === 'customer.subscription.deleted' ? 'canceled' : undefined);
        if (!state) {
          logger?.warn('Stripe subscription with an unknown price ignored', { eventId: event.id, subscriptionId: sub.id });
          return ignored();
        }
        return { ...base, type: 'subscription.updated', data: state };
      }
    }
  }

  return {
    name: PROVIDER,
    ensureCustomer,

    async createSubscriptionCheckout({ userId, tier, idempotencyKey }) {
      const customer = await ensureCustomer(userId);
      const stripe = await stripeClient();
      const session = await providerCall(logger, 'checkout.sessions.create', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'subscription',
            customer,
            client_reference_id: userId,
            line_items: [{ price: config.prices[tier], quantity: 1 }],
            success_url: config.successUrl,
            cancel_url: config.cancelUrl,
            metadata: { stratboxUserId: userId, tier },
            subscription_data: { metadata: { stratboxUserId: userId, tier } },
          },
          { idempotencyKey },
        ),
      );
      if (!session.url) throw new StratboxError('UNAVAILABLE', 'The payment provider returned no checkout address; try again later');
      return { url: session.url, sessionId: session.id };
    },

    async createPurchaseCheckout({ userId, purchaseId, listing, idempotencyKey }) {
      const customer = await ensureCustomer(userId);
      const metadata = { stratboxUserId: userId, purchaseId, listingId: listing.id };
      const stripe = await stripeClient();
      const session = await providerCall(logger, 'checkout.sessions.create', () =>
        stripe.checkout.sessions.create(
          {
            mode: 'payment',
            customer,
            client_reference_id: userId,
            line_items: [
              {
                quantity: 1,
                price_data: { currency: 'usd', unit_amount: listing.price, product_data: { name: listing.name, metadata: { listingId: listing.id } } },
              },
            ],
            success_url: config.successUrl,
            cancel_url: config.cancelUrl,
            metadata,
            payment_intent_data: { metadata },
          },
          { idempotencyKey },
        ),
      );
      if (!session.url) throw new StratboxError('UNAVAILABLE', 'The payment provider returned no checkout address; try again later');
      const completed = session.status === 'complete' && (session.payment_status === 'paid' || session.payment_status === 'no_payment_required');
      return { url: session.url, sessionId: session.id, completed };
    },

    async createPortalSession(userId) {
      const customer = await ensureCustomer(userId);
      const stripe = await stripeClient();
      const session = await providerCall(logger, 'billingPortal.sessions.create', () =>
        stripe.billingPortal.sessions.create(
          { customer, return_url: portalReturnUrl },
          { idempotencyKey: `stratbox-portal-${userId}-${clock.now().getTime()}` },
        ),
      );
      return { url: session.url };
    },

    async listInvoices(userId, page) {
      const startingAfter = page.cursor === undefined ? undefined : decodeInvoiceCursor(page.cursor);
      const customer = await store.billingCustomers.findByUser(userId, PROVIDER);
      if (!customer) return { invoices: [], nextCursor: null };
      const stripe = await stripeClient();
      const list = await providerCall(logger, 'invoices.list', () =>
        stripe.invoices.list({ customer: customer.customerId, limit: Math.min(100, page.limit), ...(startingAfter ? { starting_after: startingAfter } : {}) }),
      );
      const invoices: ProviderInvoice[] = list.data.map((inv) => ({
        id: inv.id ?? '',
        number: inv.number ?? null,
        status: inv.status ?? 'draft',
        amountDue: inv.amount_due,
        amountPaid: inv.amount_paid,
        currency: inv.currency,
        createdAt: iso(inv.created) ?? clock.now().toISOString(),
        hostedUrl: inv.hosted_invoice_url ?? null,
        pdfUrl: inv.invoice_pdf ?? null,
      }));
      const last = invoices[invoices.length - 1];
      return { invoices, nextCursor: list.has_more && last && last.id ? encodeInvoiceCursor(last.id) : null };
    },

    async parseWebhook(rawBody, headers) {
      const signature = headers['stripe-signature'];
      if (typeof signature !== 'string' || signature === '') {
        throw new StratboxError('VALIDATION_FAILED', 'Invalid webhook signature', [{ path: 'headers', message: 'Missing Stripe-Signature' }]);
      }
      const stripe = await stripeClient();
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength), signature, config.webhookSecret, tolerance);
      } catch {
        throw new StratboxError('VALIDATION_FAILED', 'Invalid webhook signature', [{ path: 'headers', message: 'Stripe-Signature does not match the body' }]);
      }
      return normalize(event);
    },
  };
}
