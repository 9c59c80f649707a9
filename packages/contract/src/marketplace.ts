import { z } from 'zod';
import { MarketSymbol, NextCursor, PageQuery, Timeframe, Timestamp, queryInteger } from './common.js';
import { EvidenceBadge, ListingRecordSummary, ListingSort } from './listing-records.js';
import { ListingId, PurchaseId, ReviewId, StrategyId, UserId } from './ids.js';

const Tag = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, { message: 'Tags are 1-32 letters, digits or dashes' });

/** Price in USD cents; 0 means free. */
const Price = z.number().int().min(0).max(100_000_000).meta({ description: 'Price in USD cents; 0 means free' });

export const CreateListingBody = z.strictObject({
  strategyId: StrategyId,
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000).default(''),
  price: Price,
  tags: z.array(Tag).max(10).default([]),
  symbols: z
    .array(MarketSymbol)
    .min(1)
    .max(10)
    .optional()
    .meta({ description: 'What the platform verifies it on (backtest and forward record); default BTC/USDT:USDT (LINEAR) or BTC/USDT (SPOT)' }),
  timeframe: Timeframe.optional().meta({ description: "The verification's timeframe; default the strategy's declared one, else 1h" }),
});

export const UpdateListingBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(10_000).optional(),
    price: Price.optional(),
    tags: z.array(Tag).max(10).optional(),
    strategyVersion: z.number().int().min(1).optional().meta({ description: 'Publish this (newer) version of the strategy' }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Give at least one field to change' });

export const Listing = z.object({
  id: ListingId,
  strategyId: StrategyId,
  strategyVersion: z.number().int(),
  sellerId: UserId,
  name: z.string(),
  description: z.string(),
  price: z.number().int(),
  tags: z.array(z.string()),
  averageRating: z.number().nullable(),
  reviewCount: z.number().int(),
  purchaseCount: z.number().int(),
  record: ListingRecordSummary.nullable().meta({
    description: "The platform's verification of the listed version (GET /api/marketplace/:id/record for all of it)",
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SearchListingsQuery = z.strictObject({
  search: z.string().max(200).optional().meta({ description: 'Case-insensitive match on name or description' }),
  tags: z.string().max(400).optional().meta({ description: 'Comma-separated tags; a listing must carry all of them' }),
  sort: ListingSort.optional().meta({
    description: 'newest (default), or by the verified record: forwardReturn, forwardSharpe, dsr, forwardDays (highest first)',
  }),
  minBadge: EvidenceBadge.optional().meta({ description: 'Only listings whose evidence badge is at least this' }),
  minForwardDays: queryInteger().min(0).max(100_000).optional().meta({ description: 'Only listings with at least this many forward days' }),
  ...PageQuery,
});
export const ListingList = z.object({ listings: z.array(Listing), nextCursor: NextCursor });
export const MyListingsQuery = z.strictObject({ ...PageQuery });

export const PurchaseStatus = z.enum(['pending', 'completed', 'failed']);
export const PurchaseBody = z.strictObject({}).optional();
export const Purchase = z.object({
  id: PurchaseId,
  listingId: ListingId,
  strategyId: StrategyId,
  strategyVersion: z.number().int(),
  price: z.number().int(),
  status: PurchaseStatus,
  checkoutUrl: z.string().nullable().meta({ description: 'Where to pay, while the purchase is pending' }),
  createdAt: Timestamp,
});
export const PurchaseList = z.object({ purchases: z.array(Purchase), nextCursor: NextCursor });
export const PurchasesQuery = z.strictObject({ ...PageQuery });

export const ReviewBody = z.strictObject({
  rating: z.number().int().min(1).max(5),
  text: z.string().max(5000).meta({ description: 'Stored and returned as given: clients must escape it when rendering' }),
});
export const Review = z.object({
  id: ReviewId,
  listingId: ListingId,
  reviewerId: UserId,
  rating: z.number().int(),
  text: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const ReviewsQuery = z.strictObject({
  mine: z.enum(['true', 'false']).optional().meta({
    description: "`true`: only the caller's own review of the listing (a list of zero or one); `false` or absent: every review",
  }),
  ...PageQuery,
});
export const ReviewList = z.object({ reviews: z.array(Review), nextCursor: NextCursor });
