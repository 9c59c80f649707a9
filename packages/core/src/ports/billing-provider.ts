/**
 * The BillingProvider port: the payment provider behind subscriptions, marketplace purchases
 * and invoices. Implementations: `createStripeBillingProvider` (Stripe Checkout, Customer
 * Portal, invoices, signed webhooks) and `createLocalBillingProvider` (the embedded default:
 * completes every checkout at once, keeps its own invoices in the Store, works offline).
 *
 * Guarantees every implementation gives:
 * - Customers: `ensureCustomer` creates the user's customer at the provider once and remembers
 *   it in the Store (`billingCustomers`); later and concurrent calls answer the same id.
 * - Idempotency: every call that creates something at the provider carries an idempotency key
 *   (the given `idempotencyKey`, or one derived from the user for customers), so a retried call
 *   (by the provider's client or by Stratbox) never creates a second object.
 * - Outages: when the provider cannot be reached, answers 5xx, rate-limits or refuses the
 *   call, the method throws `StratboxError('UNAVAILABLE')` (503, safe to retry) whose message
 *   names no internals. Nothing is half-written: a method either returns a usable result or
 *   throws, and it writes to the Store only what is complete (a remembered customer).
 * - Webhooks: `parseWebhook` verifies the signature over the exact raw bytes and throws
 *   `StratboxError('VALIDATION_FAILED')` (400) for a missing, bad or stale signature (older than
 *   the tolerance, 300 s for Stripe). It has no side effects: the caller applies the event,
 *   records its id as processed in the same transaction, and so processes each id once.
 * - Amounts are USD cents.
 */
import type { z } from 'zod';
import type { PaidTier } from '@stratbox/contract';

type PaidTierName = z.infer<typeof PaidTier>;

export type SubscriptionEventStatus = 'active' | 'trialing' | 'past_due' | 'canceled' | 'incomplete' | 'unpaid' | 'paused';

/** A subscription's state as the provider reports it. */
export interface SubscriptionState {
  /** Our user, if the provider's object names it (metadata); else found through the customer. */
  userId: string | null;
  customerId: string | null;
  subscriptionId: string;
  tier: PaidTierName;
  status: SubscriptionEventStatus;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
}

/** A provider event, normalized. `created` is when the provider created it (ISO 8601). */
export type BillingEvent =
  | { id: string; created: string; type: 'subscription.updated'; data: SubscriptionState }
  | {
      id: string;
      created: string;
      type: 'subscription.checkout_completed';
      data: { userId: string | null; customerId: string | null; subscriptionId: string; tier: PaidTierName | null };
    }
  | { id: string; created: string; type: 'purchase.completed'; data: { purchaseId: string; sessionId: string } }
  | { id: string; created: string; type: 'purchase.failed'; data: { purchaseId: string; sessionId: string } }
  /** Anything Stratbox does not act on; acknowledged so the provider stops redelivering it. */
  | { id: string; created: string; type: 'ignored'; data: { providerType: string } };

export type BillingEventType = BillingEvent['type'];

export interface SubscriptionCheckout {
  /** Where the user pays. */
  url: string;
  sessionId: string;
  /**
   * Set when the provider completed the checkout at once (the local provider): the event that
   * records the new subscription, to be applied exactly as if it had come by webhook.
   */
  completedEvent?: BillingEvent;
}

export interface PurchaseCheckout {
  url: string;
  sessionId: string;
  /** True when the payment is already confirmed (local provider); false while the provider has yet to confirm it by webhook. */
  completed: boolean;
}

/** The listing being bought, as the provider needs it for the checkout page. */
export interface CheckoutListing {
  id: string;
  name: string;
  /** USD cents, more than 0 (free listings never reach the provider). */
  price: number;
  sellerId: string;
}

export interface ProviderInvoice {
  id: string;
  number: string | null;
  status: string;
  amountDue: number;
  amountPaid: number;
  currency: string;
  createdAt: string;
  /** The provider's page for the invoice. */
  hostedUrl: string | null;
  /** Download URL of the PDF. */
  pdfUrl: string | null;
}

export interface InvoicePage {
  invoices: ProviderInvoice[];
  nextCursor: string | null;
}

export interface BillingProvider {
  /** `stripe`, `local`, ...: the key customers, subscriptions and processed events are stored under. */
  readonly name: string;
  /** The user's customer id at the provider, created once and remembered in the Store. */
  ensureCustomer(userId: string): Promise<string>;
  /** A checkout for a subscription to `tier` (Stripe: Checkout Session in `subscription` mode). */
  createSubscriptionCheckout(input: { userId: string; tier: PaidTierName; idempotencyKey: string }): Promise<SubscriptionCheckout>;
  /** A checkout for one marketplace purchase (Stripe: Checkout Session in `payment` mode). */
  createPurchaseCheckout(input: { userId: string; purchaseId: string; listing: CheckoutListing; idempotencyKey: string }): Promise<PurchaseCheckout>;
  /** A customer portal session for managing the subscription and payment methods. */
  createPortalSession(userId: string): Promise<{ url: string }>;
  /** The user's invoices, newest first; an empty page for a user who never paid. `cursor` is opaque (from `nextCursor`). */
  listInvoices(userId: string, page: { limit: number; cursor?: string | undefined }): Promise<InvoicePage>;
  /** Verifies and normalizes a webhook; throws VALIDATION_FAILED for a bad signature. */
  parseWebhook(rawBody: Uint8Array, headers: Record<string, string | string[] | undefined>): Promise<BillingEvent>;
}
