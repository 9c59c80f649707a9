import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { CheckoutBody, type Subscription } from '@stratbox/contract';
import { StratboxError } from '../errors/stratbox-error.js';
import type { BillingProvider, SubscriptionState } from '../ports/billing-provider.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Store, StoreRepositories, SubscriptionRecord } from '../ports/store.js';
import type { BillingEventHandlers, BillingEventProcessor } from './billing-events.js';
import { ENTITLED_STATUSES, effectiveTier, type PaidTierName, type TierName } from './plans.js';
import { parseInput } from '../util/validate.js';
import { recordSubscriptionChange } from './billing-notifications.js';

export interface SubscriptionServiceDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  provider: BillingProvider;
  events: BillingEventProcessor;
}

export type SubscriptionView = z.infer<typeof Subscription>;

/** What `GET /api/billing/subscription` answers for a user who never subscribed. */
export const FREE_SUBSCRIPTION: SubscriptionView = Object.freeze({ tier: 'free', status: 'active', renewalDate: null, cancelAtPeriodEnd: false });

/** The lowest `eventCreatedAt`: any provider event is at least this new. */
const EPOCH = '1970-01-01T00:00:00.000Z';

const isEntitled = (status: string) => (ENTITLED_STATUSES as readonly string[]).includes(status);

export function toSubscriptionView(record: SubscriptionRecord | null): SubscriptionView {
  if (!record) return { ...FREE_SUBSCRIPTION };
  return {
    tier: record.tier,
    status: record.status,
    renewalDate: record.status === 'canceled' ? null : record.currentPeriodEnd,
    cancelAtPeriodEnd: record.cancelAtPeriodEnd,
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;

/**
 * Subscriptions, driven by the provider's events (webhooks; the local provider's checkout
 * completes with an event of its own that takes the same path):
 *
 * - `subscription.updated` carries the subscription's whole state; it is stored unless the
 *   stored state comes from a newer event (`created` later), so an older event delivered late
 *   never moves the subscription backwards. An event of a previous subscription that is over
 *   never replaces a current one.
 * - `subscription.checkout_completed` makes the tier active at once when the stored state does
 *   not know this subscription yet (renewal date unknown until its first subscription event);
 *   the subscription's own events, whenever they arrive, take precedence over it.
 * - Event ids are processed once (see `createBillingEventProcessor`).
 * - A stored change of tier or status writes `subscription.changed` in the event's transaction.
 *
 * Limits follow `effectiveTier`: `active`, `trialing`, `past_due` keep the tier, any other
 * status is the free plan.
 */
export function createSubscriptionService(deps: SubscriptionServiceDeps) {
  const { store, clock, logger, provider, events } = deps;

  async function userOf(tx: StoreRepositories, userId: string | null, customerId: string | null): Promise<string | null> {
    if (customerId) {
      const customer = await tx.billingCustomers.findByCustomerId(provider.name, customerId);
      if (customer) return customer.userId;
    }
    return userId;
  }

  /** `subscription.changed` when the event just stored changed the tier or status (in the event's transaction, once per event id). */
  async function tellChange(tx: StoreRepositories, before: SubscriptionRecord | null, userId: string, eventId: string) {
    const after = await tx.subscriptions.findByUser(userId);
    if (after) await recordSubscriptionChange(tx, before, after, { provider: provider.name, eventId }, clock.now().toISOString());
  }

  const handlers: BillingEventHandlers = {
    'subscription.updated': async (tx, event) => {
      const state: SubscriptionState = event.data;
      const userId = await userOf(tx, state.userId, state.customerId);
      if (!userId) {
        logger.warn('Subscription event for an unknown customer ignored', { eventId: event.id, subscriptionId: state.subscriptionId });
        return;
      }
      const current = await tx.subscriptions.findByUser(userId);
      if (current && current.subscriptionId !== state.subscriptionId && isEntitled(current.status) && !isEntitled(state.status)) {
        logger.info('Event of an ended subscription ignored: the user has a newer one', { eventId: event.id });
        return;
      }
      const written = await tx.subscriptions.putIfNotOlder({
        userId,
        provider: provider.name,
        subscriptionId: state.subscriptionId,
        customerId: state.customerId,
        tier: state.tier,
        status: state.status,
        currentPeriodStart: state.currentPeriodStart,
        currentPeriodEnd: state.currentPeriodEnd,
        cancelAtPeriodEnd: state.cancelAtPeriodEnd,
        eventCreatedAt: event.created,
        updatedAt: clock.now().toISOString(),
      });
      if (written) await tellChange(tx, current, userId, event.id);
    },

    'subscription.checkout_completed': async (tx, event) => {
      const { data } = event;
      const userId = await userOf(tx, data.userId, data.customerId);
      if (!userId || !data.tier) {
        logger.warn('Subscription checkout for an unknown user or tier ignored', { eventId: event.id });
        return;
      }
      const current = await tx.subscriptions.findByUser(userId);
      // The subscription's own events are authoritative; this only fills the gap until they come.
      if (current && current.subscriptionId === data.subscriptionId) return;
      if (current && isEntitled(current.status) && current.eventCreatedAt > event.created) return;
      const written = await tx.subscriptions.putIfNotOlder({
        userId,
        provider: provider.name,
        subscriptionId: data.subscriptionId,
        customerId: data.customerId,
        tier: data.tier,
        status: 'active',
        currentPeriodStart: null,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        // As new as what is stored, and no newer: any event of this subscription supersedes it.
        eventCreatedAt: current?.eventCreatedAt ?? EPOCH,
        updatedAt: clock.now().toISOString(),
      });
      if (written) await tellChange(tx, current, userId, event.id);
    },
  };
  events.register(handlers);

  return {
    /** The caller's subscription; `free`/`active` for a user who has none. */
    async get(userId: string): Promise<SubscriptionView> {
      return toSubscriptionView(await store.subscriptions.findByUser(userId));
    },

    /** The stored record and the tier whose limits apply now. */
    async entitlement(userId: string): Promise<{ record: SubscriptionRecord | null; tier: TierName }> {
      const record = await store.subscriptions.findByUser(userId);
      return { record, tier: record ? effectiveTier(record.tier, record.status) : 'free' };
    },

    /**
     * A checkout address for a subscription to `tier`. A user who already has a paid
     * subscription in force is a 409: plans are changed or cancelled in the customer portal.
     * A provider outage is a 503 and changes nothing. Checked like `POST /api/billing/checkout`'s
     * body: another tier is VALIDATION_FAILED.
     */
    async checkout(userId: string, paidTier: PaidTierName): Promise<{ url: string }> {
      const { tier } = parseInput(CheckoutBody, { tier: paidTier }, 'body');
      const current = await store.subscriptions.findByUser(userId);
      if (current && isEntitled(current.status)) {
        throw new StratboxError('CONFLICT', `You already have a ${current.tier} subscription (${current.status}); change or cancel it in the customer portal`, {
          tier: current.tier,
          status: current.status,
        });
      }
      const checkout = await provider.createSubscriptionCheckout({ userId, tier, idempotencyKey: `stratbox-subscription-checkout-${randomUUID()}` });
      if (checkout.completedEvent) await events.process(checkout.completedEvent);
      return { url: checkout.url };
    },

    /** A customer portal address (creates the provider customer on first use). */
    async portal(userId: string): Promise<{ url: string }> {
      return provider.createPortalSession(userId);
    },

    /** The caller's invoices at the provider, newest first. */
    async invoices(userId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
      return provider.listInvoices(userId, { limit: query.limit ?? 50, cursor: query.cursor });
    },
  };
}
