import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { StratboxError } from '../errors/stratbox-error.js';
import type { BillingEvent, BillingProvider, ProviderInvoice } from '../ports/billing-provider.js';
import type { Clock } from '../ports/clock.js';
import type { LocalInvoiceRecord, Store } from '../ports/store.js';
import { paginate } from '../util/cursor.js';
import { addMonthsUtc } from './periods.js';
import { PLANS, type PlanTable } from './plans.js';

export interface LocalBillingConfig {
  store: Store;
  clock: Clock;
  /** Prices of subscriptions (default: the standard plan table). */
  plans?: PlanTable;
  /** Base of the (fake) checkout, portal and invoice addresses it hands out. Default `http://localhost/stratbox-billing`. */
  publicUrl?: string;
  /**
   * Secret of the local provider's own signed webhooks (`signEvent`), e.g. to simulate a
   * cancellation offline. Default: random per process.
   */
  webhookSecret?: string;
  /** How old a signed local event may be, in seconds (default 300). */
  webhookToleranceSeconds?: number;
}

export const LOCAL_SIGNATURE_HEADER = 'stratbox-signature';

const random = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`;

const Iso = z.string().min(1);
const SubscriptionStateSchema = z.object({
  userId: z.string().nullable(),
  customerId: z.string().nullable(),
  subscriptionId: z.string().min(1),
  tier: z.enum(['pro', 'team']),
  status: z.enum(['active', 'trialing', 'past_due', 'canceled', 'incomplete', 'unpaid', 'paused']),
  currentPeriodStart: Iso.nullable(),
  currentPeriodEnd: Iso.nullable(),
  cancelAtPeriodEnd: z.boolean(),
});
const LocalEvent: z.ZodType<BillingEvent> = z.discriminatedUnion('type', [
  z.object({ id: z.string().min(1), created: Iso, type: z.literal('subscription.updated'), data: SubscriptionStateSchema }),
  z.object({
    id: z.string().min(1),
    created: Iso,
    type: z.literal('subscription.checkout_completed'),
    data: z.object({
      userId: z.string().nullable(),
      customerId: z.string().nullable(),
      subscriptionId: z.string().min(1),
      tier: z.enum(['pro', 'team']).nullable(),
    }),
  }),
  z.object({ id: z.string().min(1), created: Iso, type: z.literal('purchase.completed'), data: z.object({ purchaseId: z.string(), sessionId: z.string() }) }),
  z.object({ id: z.string().min(1), created: Iso, type: z.literal('purchase.failed'), data: z.object({ purchaseId: z.string(), sessionId: z.string() }) }),
  z.object({ id: z.string().min(1), created: Iso, type: z.literal('ignored'), data: z.object({ providerType: z.string() }) }),
]) as z.ZodType<BillingEvent>;

const toInvoice = (r: LocalInvoiceRecord): ProviderInvoice => ({
  id: r.id,
  number: r.number,
  status: r.status,
  amountDue: r.amountDue,
  amountPaid: r.amountPaid,
  currency: r.currency,
  createdAt: r.createdAt,
  hostedUrl: r.hostedUrl,
  pdfUrl: r.pdfUrl,
});

export type LocalBillingProvider = BillingProvider & {
  /** A signed webhook for `event`, as the local provider's `parseWebhook` accepts it. */
  signEvent(event: BillingEvent, options?: { timestamp?: number }): { body: string; headers: Record<string, string> };
};

/**
 * The embedded billing provider: no payment is taken, every checkout completes at once,
 * invoices are kept in the Store (`localInvoices`), so the whole billing flow works offline.
 * Subscriptions it sells last one calendar month from the checkout and are not renewed by it
 * (send a signed `subscription.updated` event with `signEvent` to change one). Its webhook
 * accepts only events signed with its own secret (HMAC-SHA256 over `<timestamp>.<body>` in the
 * `stratbox-signature: t=<unix seconds>,v1=<hex>` header).
 */
export function createLocalBillingProvider(config: LocalBillingConfig): LocalBillingProvider {
  const { store, clock } = config;
  const plans = config.plans ?? PLANS;
  const base = (config.publicUrl ?? 'http://localhost/stratbox-billing').replace(/\/+$/, '');
  const secret = config.webhookSecret ?? randomBytes(32).toString('hex');
  const tolerance = config.webhookToleranceSeconds ?? 300;
  /** Results by idempotency key, so a repeated call returns the first result (this process only). */
  const idempotent = new Map<string, Promise<unknown>>();
  let invoiceNumber = 0;

  function once<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const existing = idempotent.get(key) as Promise<T> | undefined;
    if (existing) return existing;
    const result = fn();
    idempotent.set(key, result);
    result.catch(() => idempotent.delete(key));
    return result;
  }

  async function ensureCustomer(userId: string): Promise<string> {
    const existing = await store.billingCustomers.findByUser(userId, 'local');
    if (existing) return existing.customerId;
    const stored = await store.billingCustomers.insertIfAbsent({
      userId,
      provider: 'local',
      customerId: random('cus_local'),
      createdAt: clock.now().toISOString(),
    });
    return stored.customerId;
  }

  async function issueInvoice(userId: string, amount: number, description: string): Promise<void> {
    const now = clock.now();
    const id = random('in_local');
    invoiceNumber += 1;
    await store.localInvoices.insert({
      id,
      userId,
      number: `LOCAL-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${String(invoiceNumber).padStart(4, '0')}-${id.slice(-4)}`,
      status: 'paid',
      amountDue: amount,
      amountPaid: amount,
      currency: 'usd',
      description,
      hostedUrl: `${base}/invoices/${id}`,
      pdfUrl: `${base}/invoices/${id}.pdf`,
      createdAt: now.toISOString(),
    });
  }

  function signature(body: string, timestamp: number): string {
    return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  }

  return {
    name: 'local',
    ensureCustomer,

    async createSubscriptionCheckout({ userId, tier, idempotencyKey }) {
      return once(`sub:${idempotencyKey}`, async () => {
        const customerId = await ensureCustomer(userId);
        const now = clock.now();
        const sessionId = random('cs_local');
        const subscriptionId = random('sub_local');
        await issueInvoice(userId, plans[tier].priceUsdCents, `Stratbox ${plans[tier].name} subscription, 1 month`);
        const completedEvent: BillingEvent = {
          id: random('evt_local'),
          created: now.toISOString(),
          type: 'subscription.updated',
          data: {
            userId,
            customerId,
            subscriptionId,
            tier,
            status: 'active',
            currentPeriodStart: now.toISOString(),
            currentPeriodEnd: addMonthsUtc(now, 1).toISOString(),
            cancelAtPeriodEnd: false,
          },
        };
        return { url: `${base}/checkout/${sessionId}/complete`, sessionId, completedEvent };
      });
    },

    async createPurchaseCheckout({ userId, listing, idempotencyKey }) {
      return once(`purchase:${idempotencyKey}`, async () => {
        await ensureCustomer(userId);
        const sessionId = random('cs_local');
        await issueInvoice(userId, listing.price, `Marketplace licence: ${listing.name} (${listing.id})`);
        return { url: `${base}/checkout/${sessionId}/complete`, sessionId, completed: true };
      });
    },

    async createPortalSession(userId) {
      const customerId = await ensureCustomer(userId);
      return { url: `${base}/portal/${customerId}` };
    },

    async listInvoices(userId, page) {
      const result = await paginate(page, (p) => store.localInvoices.list(userId, p));
      return { invoices: result.items.map(toInvoice), nextCursor: result.nextCursor };
    },

    async parseWebhook(rawBody, headers) {
      const header = headers[LOCAL_SIGNATURE_HEADER];
      const invalid = () =>
        new StratboxError('VALIDATION_FAILED', 'Invalid webhook signature', [{ path: 'headers', message: `Missing or bad ${LOCAL_SIGNATURE_HEADER}` }]);
      if (typeof header !== 'string') throw invalid();
      const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
      const timestamp = Number(parts.t);
      const given = parts.v1 ?? '';
      if (!Number.isInteger(timestamp) || !/^[0-9a-f]{64}$/.test(given)) throw invalid();
      const body = Buffer.from(rawBody).toString('utf8');
      const expected = Buffer.from(signature(body, timestamp), 'hex');
      if (!timingSafeEqual(expected, Buffer.from(given, 'hex'))) throw invalid();
      if (Math.abs(clock.now().getTime() / 1000 - timestamp) > tolerance) throw invalid();
      let data: unknown;
      try {
        data = JSON.parse(body);
      } catch {
        throw new StratboxError('VALIDATION_FAILED', 'Webhook body is not JSON');
      }
      const parsed = LocalEvent.safeParse(data);
      if (!parsed.success) throw new StratboxError('VALIDATION_FAILED', 'Webhook body is not a Stratbox billing event');
      return parsed.data;
    },

    signEvent(event, options = {}) {
      const body = JSON.stringify(event);
      const timestamp = options.timestamp ?? Math.floor(clock.now().getTime() / 1000);
      return { body, headers: { [LOCAL_SIGNATURE_HEADER]: `t=${timestamp},v1=${signature(body, timestamp)}`, 'content-type': 'application/json' } };
    },
  };
}
