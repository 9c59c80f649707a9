import type { BillingEventHandlers, BillingEventProcessor } from '../billing/billing-events.js';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import type { BillingProvider } from '../ports/billing-provider.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { PurchaseRecord, Store } from '../ports/store.js';
import { paginate } from '../util/cursor.js';
import { newId } from '../util/ids.js';
import { toPurchaseView, type PurchaseView } from './marketplace-views.js';
import { recordListingPurchased } from './marketplace-events.js';

export interface PurchaseServiceDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  provider: BillingProvider;
  events: BillingEventProcessor;
}

export type PurchaseService = ReturnType<typeof createPurchaseService>;

function alreadyBought(existing: PurchaseRecord): StratboxError {
  const message =
    existing.status === 'completed'
      ? `You already bought listing ${existing.listingId}`
      : `Your purchase of listing ${existing.listingId} is waiting for payment`;
  return new StratboxError('CONFLICT', message, { purchaseId: existing.id, status: existing.status });
}

/**
 * Marketplace purchases: each buys a run-only licence for a listing's strategy (see
 * `licences.ts`).
 *
 * - A free listing is bought at once (`completed`).
 * - A purchase that completes tells the seller (`listing.purchased`, without naming the buyer),
 *   in the transaction that completes it.
 * - A paid listing goes through the billing provider: the checkout is created first, with the
 *   new purchase's id as idempotency key; only when it exists is the purchase stored, `pending`
 *   until the provider confirms the payment (Stripe: `checkout.session.completed` webhook) or
 *   `completed` at once when the provider says so (local provider). A provider outage is a 503
 *   and leaves no purchase behind.
 * - Buying one's own listing is 403; buying a listing one has bought (or is paying for) is 409,
 *   also for concurrent requests: the Store's unique (buyer, listing) constraint decides. A
 *   `failed` purchase (checkout expired) may be bought again.
 */
export function createPurchaseService({ store, clock, logger, provider, events }: PurchaseServiceDeps) {
  const handlers: BillingEventHandlers = {
    'purchase.completed': async (tx, event) => {
      const now = clock.now().toISOString();
      const updated = await tx.purchases.transition(event.data.purchaseId, ['pending', 'failed'], {
        status: 'completed',
        completedAt: now,
        updatedAt: now,
      });
      if (updated) {
        await tx.listings.incrementPurchaseCount(updated.listingId);
        const listing = await tx.listings.findById(updated.listingId);
        if (listing) await recordListingPurchased(tx, listing, updated, now);
      } else logger.warn('Payment confirmed for an unknown or already completed purchase', { eventId: event.id, purchaseId: event.data.purchaseId });
    },
    'purchase.failed': async (tx, event) => {
      const now = clock.now().toISOString();
      await tx.purchases.transition(event.data.purchaseId, ['pending'], { status: 'failed', updatedAt: now });
    },
  };
  events.register(handlers);

  return {
    async purchase(userId: string, listingId: string): Promise<PurchaseView> {
      const listing = await store.listings.findById(listingId);
      if (!listing || listing.status !== 'listed') throw notFound('Listing', listingId);
      if (listing.sellerId === userId) throw new StratboxError('FORBIDDEN', 'You cannot buy your own listing');
      const existing = await store.purchases.findByListing(userId, listingId);
      if (existing && existing.status !== 'failed') throw alreadyBought(existing);

      const now = clock.now().toISOString();
      const record: PurchaseRecord = {
        id: newId('purchase'),
        buyerId: userId,
        listingId,
        sellerId: listing.sellerId,
        strategyId: listing.strategyId,
        strategyVersion: listing.strategyVersion,
        price: listing.price,
        status: 'completed',
        checkoutSessionId: null,
        checkoutUrl: null,
        createdAt: now,
        updatedAt: now,
        completedAt: now,
      };
      if (listing.price > 0) {
        // Provider first: if it is down, this throws UNAVAILABLE and nothing has been written.
        const checkout = await provider.createPurchaseCheckout({
          userId,
          purchaseId: record.id,
          listing: { id: listing.id, name: listing.name, price: listing.price, sellerId: listing.sellerId },
          idempotencyKey: `stratbox-purchase-${record.id}`,
        });
        record.checkoutSessionId = checkout.sessionId;
        if (checkout.completed) {
          record.status = 'completed';
        } else {
          record.status = 'pending';
          record.checkoutUrl = checkout.url;
          record.completedAt = null;
        }
      }
      await store.transaction(async (tx) => {
        if (existing?.status === 'failed') await tx.purchases.deleteIf(userId, existing.id, ['failed']);
        if (!(await tx.purchases.insertIfAbsent(record))) {
          const winner = await tx.purchases.findByListing(userId, listingId);
          throw winner ? alreadyBought(winner) : new StratboxError('CONFLICT', `You already bought listing ${listingId}`);
        }
        if (record.status === 'completed') {
          await tx.listings.incrementPurchaseCount(listingId);
          await recordListingPurchased(tx, listing, record, now);
        }
      });
      return toPurchaseView(record);
    },

    /** The caller's purchases, newest first. */
    async list(userId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
      const page = await paginate(query, (p) => store.purchases.list(userId, p));
      return { purchases: page.items.map(toPurchaseView), nextCursor: page.nextCursor };
    },
  };
}
