import type { z } from 'zod';
import { ReviewBody } from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { ReviewRecord, Store } from '../ports/store.js';
import { paginate } from '../util/cursor.js';
import { newId } from '../util/ids.js';
import { toReviewView, type ReviewView } from './marketplace-views.js';
import { parseInput } from '../util/validate.js';
import { recordReviewCreated } from './marketplace-events.js';

export interface ReviewServiceDeps {
  store: Store;
  clock: Clock;
}

export type ReviewService = ReturnType<typeof createReviewService>;

/**
 * Reviews of listings. Only a buyer (a completed purchase) may review, once per listing (a
 * second review is 409; edit it with PUT instead); the seller and other users get 403. A review
 * is edited only by its author (anyone else: 404). The listing's review count and average
 * rating change in the same transaction as the review, with atomic increments, so they always
 * agree with the reviews; the seller is told (`review.created`) in that transaction too. Text is stored and returned exactly as given; clients must escape it.
 */
export function createReviewService({ store, clock }: ReviewServiceDeps) {
  async function listedListing(listingId: string) {
    const listing = await store.listings.findById(listingId);
    if (!listing || listing.status !== 'listed') throw notFound('Listing', listingId);
    return listing;
  }

  return {
    /**
     * Reviews of a listed listing, newest first. With `mine: 'true'`, only the caller's own
     * review of it: a list of zero or one, never another user's.
     */
    async list(userId: string, listingId: string, query: { mine?: 'true' | 'false' | undefined; limit?: number | undefined; cursor?: string | undefined }) {
      await listedListing(listingId);
      if (query.mine === 'true') {
        const own = await store.reviews.findByListing(userId, listingId);
        return { reviews: own ? [toReviewView(own)] : [], nextCursor: null };
      }
      const page = await paginate(query, (p) => store.reviews.listByListing(listingId, p));
      return { reviews: page.items.map(toReviewView), nextCursor: page.nextCursor };
    },

    async create(userId: string, listingId: string, input: z.input<typeof ReviewBody>): Promise<ReviewView> {
      const body = parseInput(ReviewBody, input, 'body');
      const listing = await listedListing(listingId);
      if (listing.sellerId === userId) throw new StratboxError('FORBIDDEN', 'You cannot review your own listing');
      const purchase = await store.purchases.findByListing(userId, listingId);
      if (!purchase || purchase.status !== 'completed') throw new StratboxError('FORBIDDEN', 'Only buyers of a listing can review it');
      const now = clock.now().toISOString();
      const review: ReviewRecord = { id: newId('review'), listingId, reviewerId: userId, rating: body.rating, text: body.text, createdAt: now, updatedAt: now };
      await store.transaction(async (tx) => {
        if (!(await tx.reviews.insertIfAbsent(review))) {
          const existing = await tx.reviews.findByListing(userId, listingId);
          throw new StratboxError(
            'CONFLICT',
            `You already reviewed listing ${listingId}; edit your review instead`,
            existing ? { reviewId: existing.id } : undefined,
          );
        }
        await tx.listings.addRating(listingId, review.rating, 1);
        await recordReviewCreated(tx, listing, review);
      });
      return toReviewView(review);
    },

    /** Edits the caller's own review of the listing; another user's review, or one of another listing, is a 404. */
    async update(userId: string, listingId: string, reviewId: string, input: z.input<typeof ReviewBody>): Promise<ReviewView> {
      const body = parseInput(ReviewBody, input, 'body');
      return store.transaction(async (tx) => {
        const current = await tx.reviews.findByReviewer(userId, reviewId, { forUpdate: true });
        if (!current || current.listingId !== listingId) throw notFound('Review', reviewId);
        const patch = { rating: body.rating, text: body.text, updatedAt: clock.now().toISOString() };
        await tx.reviews.update(userId, reviewId, patch);
        if (patch.rating !== current.rating) await tx.listings.addRating(listingId, patch.rating - current.rating, 0);
        return toReviewView({ ...current, ...patch });
      });
    },
  };
}
