import type { z } from 'zod';
import type { Listing, Purchase, Review } from '@stratbox/contract';
import type { ListingRecord, PurchaseRecord, ReviewRecord } from '../ports/store.js';

export type ListingView = z.infer<typeof Listing>;
export type PurchaseView = z.infer<typeof Purchase>;
export type ReviewView = z.infer<typeof Review>;

/** The average of the ratings, to two decimals; null without reviews. */
export function averageRating(ratingSum: number, reviewCount: number): number | null {
  return reviewCount > 0 ? Math.round((ratingSum / reviewCount) * 100) / 100 : null;
}

/** The API view of a listing: never the strategy's source. `record` is the current verification record's summary (null before verified listings, or while none exists). */
export function toListingView(r: ListingRecord): ListingView {
  return {
    id: r.id,
    strategyId: r.strategyId,
    strategyVersion: r.strategyVersion,
    sellerId: r.sellerId,
    name: r.name,
    description: r.description,
    price: r.price,
    tags: [...r.tags],
    averageRating: averageRating(r.ratingSum, r.reviewCount),
    reviewCount: r.reviewCount,
    purchaseCount: r.purchaseCount,
    record: r.recordSummary ? { ...r.recordSummary } : null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export function toPurchaseView(r: PurchaseRecord): PurchaseView {
  return {
    id: r.id,
    listingId: r.listingId,
    strategyId: r.strategyId,
    strategyVersion: r.strategyVersion,
    price: r.price,
    status: r.status,
    checkoutUrl: r.status === 'pending' ? r.checkoutUrl : null,
    createdAt: r.createdAt,
  };
}

/** The text is returned exactly as stored: clients must escape it when rendering. */
export function toReviewView(r: ReviewRecord): ReviewView {
  return {
    id: r.id,
    listingId: r.listingId,
    reviewerId: r.reviewerId,
    rating: r.rating,
    text: r.text,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}
