import { recordNotificationEvent } from '../notifications/record-event.js';
import type { ListingRecord, PurchaseRecord, ReviewRecord, StoreRepositories } from '../ports/store.js';

/*
 * The notification events of the marketplace, both to the seller. They never name the buyer or
 * reviewer, and never carry the strategy's source. Pass the repositories of the transaction that
 * completes the purchase or inserts the review.
 */

type Outbox = Pick<StoreRepositories, 'notificationEvents'>;
type Listing = Pick<ListingRecord, 'id' | 'sellerId' | 'name'>;

/** `listing.purchased`, once per purchase (a confirmation delivered twice writes it once). */
export function recordListingPurchased(tx: Outbox, listing: Listing, purchase: Pick<PurchaseRecord, 'id'>, at: string) {
  return recordNotificationEvent(tx, {
    type: 'listing.purchased',
    userId: listing.sellerId,
    subject: { kind: 'listing', id: listing.id },
    summary: `Your listing "${listing.name}" was bought`,
    data: { listingId: listing.id, purchaseId: purchase.id, title: listing.name },
    time: at,
    dedupeKey: `listing.purchased:${purchase.id}`,
  });
}

/** `review.created`, once per review. */
export function recordReviewCreated(tx: Outbox, listing: Listing, review: Pick<ReviewRecord, 'id' | 'rating' | 'createdAt'>) {
  return recordNotificationEvent(tx, {
    type: 'review.created',
    userId: listing.sellerId,
    subject: { kind: 'listing', id: listing.id },
    summary: `Your listing "${listing.name}" got a ${review.rating}-star review`,
    data: { listingId: listing.id, reviewId: review.id, rating: review.rating, title: listing.name },
    time: review.createdAt,
    dedupeKey: `review.created:${review.id}`,
  });
}
