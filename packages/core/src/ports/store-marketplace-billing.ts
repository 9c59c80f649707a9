/*
 * The marketplace and billing part of the Store port (re-exported by `store.ts`; the
 * repositories are members of `StoreRepositories`). The general guarantees of `store.ts` hold:
 * "not found" is null/false, never a throw; timestamps are stored as given; lists are newest
 * first by (createdAt desc, id desc) and return at most `limit` rows strictly after `after`.
 *
 * Uniqueness that services rely on for correctness under concurrent requests is enforced by the
 * store itself (a unique constraint in SQL), never by a read-then-write in the service:
 * one purchase per (buyer, listing), one review per (listing, reviewer), one processed record
 * per (provider, webhook event id), one customer per (user, provider), one usage counter row
 * per (user, period).
 */
import type { ListingRecordSummary } from '@stratbox/contract';
import type { ListPosition, PageRequest } from './store.js';

/* ---------------------------------------------------------------------------------------- */
/* Marketplace                                                                               */

export type ListingStatus = 'listed' | 'unlisted';

export interface ListingRecord {
  id: string;
  sellerId: string;
  strategyId: string;
  /** The strategy version the listing sells (buyers run this version). */
  strategyVersion: number;
  name: string;
  description: string;
  /** USD cents; 0 is free. */
  price: number;
  /** Lower-case, unique, in the order given; at most 10. */
  tags: string[];
  /** Sum of the ratings of all reviews (the average is `ratingSum / reviewCount`). */
  ratingSum: number;
  reviewCount: number;
  purchaseCount: number;
  /** `unlisted` listings are out of search and my-listings, but their buyers keep their licences. */
  status: ListingStatus;
  createdAt: string;
  updatedAt: string;
  /**
   * The current verification record's summary (verified listings, store-verification.ts), which
   * search sorts and filters by; set only by `setRecordSummary` (or given to `insert`). A Store
   * returns it on every listing it reads, null when there is none; it is optional here so that
   * listings written by hand still type-check.
   */
  recordSummary?: ListingRecordSummary | null;
}

export type ListingPatch = Partial<Pick<ListingRecord, 'name' | 'description' | 'price' | 'tags' | 'strategyVersion' | 'status' | 'updatedAt'>>;

export interface ListingSearch {
  /**
   * Case-insensitive substring of the name or of the description (compared after
   * `toLowerCase()` on both sides, so it behaves the same on every store, Unicode included).
   * `%`, `_` and `\` match themselves.
   */
  text?: string;
  /** Lower-case tags; a listing must carry every one of them. */
  tags?: string[];
  /**
   * The order (default `newest`: createdAt desc, id desc). The record keys sort by the listing's
   * `recordSummary` figure of that name, highest first; listings without a summary, or whose
   * summary has no such figure (null), come last; ties (nulls included) by (createdAt desc,
   * id desc).
   */
  sort?: ListingSearchSort;
  /** Only listings whose summary's badge ranks at least this (`BADGE_RANK`: insufficient 0, emerging 1, established 2). A listing without a summary ranks 0. */
  minBadgeRank?: number;
  /** Only listings whose summary has at least this many forward days. A listing without a summary has 0. */
  minForwardDays?: number;
}

/** Sort keys of listing search (the contract's `ListingSort`). */
export type ListingSearchSort = 'newest' | 'forwardReturn' | 'forwardSharpe' | 'dsr' | 'forwardDays';

/**
 * A position in a search's order: rows strictly after it are returned. For a sort by a record
 * key it carries `value`, the sort value of the last row read (`listingSortValue`, null when
 * that row had none); an absent `value` is taken as null. For `newest` it is ignored.
 */
export interface ListingSearchPosition extends ListPosition {
  value?: number | null;
}

/** A page of a listing search: at most `limit` rows strictly after `after`. */
export interface ListingSearchPage {
  limit: number;
  after?: ListingSearchPosition;
}

/** The figure `sort` orders `listing` by (null: none, sorted last); null for `newest`. */
export function listingSortValue(listing: Pick<ListingRecord, 'recordSummary'>, sort: ListingSearchSort): number | null {
  if (sort === 'newest') return null;
  return listing.recordSummary?.[sort] ?? null;
}

/** The position just after `listing` in a search sorted by `sort`: the next page's `after`. */
export function listingSearchPosition(
  listing: Pick<ListingRecord, 'id' | 'createdAt' | 'recordSummary'>,
  sort: ListingSearchSort = 'newest',
): ListingSearchPosition {
  return sort === 'newest'
    ? { createdAt: listing.createdAt, id: listing.id }
    : { createdAt: listing.createdAt, id: listing.id, value: listingSortValue(listing, sort) };
}

export interface ListingRepository {
  /** Inserts a listing with its tags; throws if the id exists. */
  insert(listing: ListingRecord): Promise<void>;
  /** Any listing by id, whoever sells it and whatever its status (services decide visibility). */
  findById(id: string): Promise<ListingRecord | null>;
  /** The seller's listing, or null (another seller's listing is null). `forUpdate` as for strategies. */
  findBySeller(sellerId: string, id: string, options?: { forUpdate?: boolean }): Promise<ListingRecord | null>;
  /** Changes the given fields of the seller's listing (tags are replaced whole); false if there is no such listing of this seller. */
  update(sellerId: string, id: string, patch: ListingPatch): Promise<boolean>;
  /**
   * Listed listings (never `unlisted` ones) matching every given criterion, in `criteria.sort`
   * order (newest first by default), at most `page.limit`, strictly after `page.after`. Paging
   * with `listingSearchPosition(last row, sort)` as the next `after` never repeats or skips a
   * listing whose summary does not change meanwhile.
   */
  search(criteria: ListingSearch, page: ListingSearchPage): Promise<ListingRecord[]>;
  /** The seller's listed listings, newest first. */
  listBySeller(sellerId: string, page: PageRequest): Promise<ListingRecord[]>;
  /** Every listing of the seller's strategy, whatever its status, newest first (another seller's are never included). */
  listByStrategy(sellerId: string, strategyId: string): Promise<ListingRecord[]>;
  /**
   * Adds `ratingDelta` to the rating sum and `countDelta` to the review count in one statement
   * (an atomic increment: concurrent calls never lose one another's change). False if there is
   * no such listing.
   */
  addRating(id: string, ratingDelta: number, countDelta: number): Promise<boolean>;
  /** Adds one to the purchase count atomically; false if there is no such listing. */
  incrementPurchaseCount(id: string): Promise<boolean>;
  /**
   * Replaces the listing's record summary (null removes it), whatever its seller and status;
   * `updatedAt` is not changed. Not scoped: the platform calls it when a record changes. False if
   * there is no such listing.
   */
  setRecordSummary(id: string, summary: ListingRecordSummary | null): Promise<boolean>;
}

export type PurchaseRecordStatus = 'pending' | 'completed' | 'failed';

export interface PurchaseRecord {
  id: string;
  buyerId: string;
  listingId: string;
  sellerId: string;
  strategyId: string;
  /** The strategy version the listing sold when bought. */
  strategyVersion: number;
  /** USD cents paid (0 for a free listing). */
  price: number;
  status: PurchaseRecordStatus;
  /** The provider's checkout session, while and after paying; null for free purchases. */
  checkoutSessionId: string | null;
  checkoutUrl: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface PurchaseRepository {
  /**
   * Inserts the purchase unless the buyer already has one of this listing (unique on
   * (buyerId, listingId), enforced by the store so that of concurrent inserts exactly one
   * wins). Returns false, without throwing and without failing the transaction, when one exists.
   * Throws if the id exists.
   */
  insertIfAbsent(purchase: PurchaseRecord): Promise<boolean>;
  /** The buyer's purchase by id, or null. */
  findById(buyerId: string, id: string): Promise<PurchaseRecord | null>;
  /** The buyer's purchase of this listing, or null. */
  findByListing(buyerId: string, listingId: string): Promise<PurchaseRecord | null>;
  /** The buyer's purchases, newest first. */
  list(buyerId: string, page: PageRequest): Promise<PurchaseRecord[]>;
  /** The buyer's completed purchases of any listing of this strategy, newest first. */
  listCompletedForStrategy(buyerId: string, strategyId: string): Promise<PurchaseRecord[]>;
  /**
   * The listing's `completed` purchases, from every buyer, newest first by (createdAt desc,
   * id desc), at most `limit`, strictly after `after`. Not scoped to a buyer: for the buyers'
   * aggregate outcome on the listing's record, which names no buyer.
   */
  listCompletedByListing(listingId: string, page: PageRequest): Promise<PurchaseRecord[]>;
  /** How many purchases of the seller's strategy (any listing, any buyer) are `pending`: checkouts neither paid nor expired yet. */
  countPendingForStrategy(sellerId: string, strategyId: string): Promise<number>;
  /**
   * Applies `patch` only if the purchase is in one of the `from` statuses (a compare-and-set, as
   * `BacktestRepository.transition`). Returns the updated record, or null. Not scoped to a
   * buyer: for webhooks, which are authenticated by the provider's signature.
   */
  transition(
    id: string,
    from: readonly PurchaseRecordStatus[],
    patch: Partial<Pick<PurchaseRecord, 'status' | 'checkoutSessionId' | 'checkoutUrl' | 'updatedAt' | 'completedAt'>>,
  ): Promise<PurchaseRecord | null>;
  /** Deletes the buyer's purchase if it is in one of the `from` statuses; false otherwise. */
  deleteIf(buyerId: string, id: string, from: readonly PurchaseRecordStatus[]): Promise<boolean>;
}

export interface ReviewRecord {
  id: string;
  listingId: string;
  reviewerId: string;
  /** 1..5 */
  rating: number;
  /** Stored exactly as given (up to 5,000 characters). */
  text: string;
  createdAt: string;
  updatedAt: string;
}

export interface ReviewRepository {
  /**
   * Inserts the review unless the reviewer already reviewed this listing (unique on
   * (listingId, reviewerId), enforced by the store). Returns false, without throwing and
   * without failing the transaction, when one exists. Throws if the id exists.
   */
  insertIfAbsent(review: ReviewRecord): Promise<boolean>;
  /** The reviewer's own review, or null (another reviewer's is null). `forUpdate` as for strategies. */
  findByReviewer(reviewerId: string, id: string, options?: { forUpdate?: boolean }): Promise<ReviewRecord | null>;
  /**
   * The reviewer's review of this listing, or null when they have not reviewed it. At most one
   * exists (the unique (listingId, reviewerId) of `insertIfAbsent`); another reviewer's review of
   * the listing is never returned.
   */
  findByListing(reviewerId: string, listingId: string): Promise<ReviewRecord | null>;
  /** Changes rating, text and updatedAt of the reviewer's own review; false if there is none. */
  update(reviewerId: string, id: string, patch: Partial<Pick<ReviewRecord, 'rating' | 'text' | 'updatedAt'>>): Promise<boolean>;
  /** Reviews of a listing, newest first. */
  listByListing(listingId: string, page: PageRequest): Promise<ReviewRecord[]>;
}

/* ---------------------------------------------------------------------------------------- */
/* Billing                                                                                   */

export interface BillingCustomerRecord {
  userId: string;
  /** Which billing provider the customer lives at, e.g. `stripe` or `local`. */
  provider: string;
  customerId: string;
  createdAt: string;
}

export interface BillingCustomerRepository {
  /**
   * Remembers the user's customer at the provider unless one is already remembered (unique on
   * (userId, provider) and on (provider, customerId)). Returns the customer that is stored
   * afterwards: the given one, or the one that was there first. Never throws for a duplicate.
   */
  insertIfAbsent(customer: BillingCustomerRecord): Promise<BillingCustomerRecord>;
  findByUser(userId: string, provider: string): Promise<BillingCustomerRecord | null>;
  findByCustomerId(provider: string, customerId: string): Promise<BillingCustomerRecord | null>;
}

export interface SubscriptionRecord {
  userId: string;
  provider: string;
  /** The provider's subscription id. */
  subscriptionId: string;
  customerId: string | null;
  tier: 'free' | 'pro' | 'team';
  status: 'active' | 'trialing' | 'past_due' | 'canceled' | 'incomplete' | 'unpaid' | 'paused';
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  /** `created` of the provider event this state comes from: a state from an older event never replaces it. */
  eventCreatedAt: string;
  updatedAt: string;
}

export interface SubscriptionRepository {
  /** The user's subscription, or null. */
  findByUser(userId: string): Promise<SubscriptionRecord | null>;
  /**
   * Stores the subscription (one per user) unless the stored one comes from a strictly newer
   * event (`eventCreatedAt` later than the given one), in one statement (insert, or update
   * guarded by that comparison), so out-of-order deliveries never move it backwards. Returns
   * true if it was written.
   */
  putIfNotOlder(subscription: SubscriptionRecord): Promise<boolean>;
}

export interface ProcessedEventRepository {
  /**
   * Records that the provider's event was processed, unless it already was (unique on
   * (provider, eventId)). True the first time, false after, never a throw for a duplicate. Call
   * it in the transaction that applies the event: if that transaction fails, the record goes
   * with it and a redelivery is processed.
   */
  markProcessed(provider: string, eventId: string, type: string, receivedAt: string): Promise<boolean>;
}

export interface UsageCounterRecord {
  userId: string;
  /** Start of the billing period this row counts (ISO); with `userId`, the key. */
  periodStart: string;
  periodEnd: string;
  /** Backtests started in the period. */
  backtests: number;
  /** CPU milliseconds of sandboxed execution in the period. */
  computeMs: number;
  updatedAt: string;
}

export interface UsagePeriod {
  start: string;
  end: string;
}

export interface UsageCounterRepository {
  /**
   * Counts one backtest in (user, period) if, before it, fewer than `limits.backtests` were
   * counted and less than `limits.computeMs` of compute was used; creates the row if missing.
   * Atomic as one compare-and-set statement: of any number of concurrent calls, exactly as many
   * succeed as the allowance has room for. Returns the row after the increment, or null if it
   * was refused (nothing is changed then).
   */
  reserveBacktest(userId: string, period: UsagePeriod, limits: { backtests: number; computeMs: number }, now: string): Promise<UsageCounterRecord | null>;
  /** Gives back one backtest reserved in (user, period) (never below zero); false if there is no row. */
  releaseBacktest(userId: string, periodStart: string, now: string): Promise<boolean>;
  /** Adds compute milliseconds to (user, period), creating the row if missing; an atomic increment. */
  addComputeMs(userId: string, period: UsagePeriod, ms: number, now: string): Promise<void>;
  /** The row of (user, period), or null if nothing was counted yet. */
  find(userId: string, periodStart: string): Promise<UsageCounterRecord | null>;
}

export interface LocalInvoiceRecord {
  id: string;
  userId: string;
  number: string;
  status: string;
  /** USD cents. */
  amountDue: number;
  amountPaid: number;
  currency: string;
  description: string;
  hostedUrl: string | null;
  pdfUrl: string | null;
  createdAt: string;
}

/** Invoices the embedded local billing provider issues itself (Stripe keeps its own). */
export interface LocalInvoiceRepository {
  /** Inserts an invoice; throws if the id exists. */
  insert(invoice: LocalInvoiceRecord): Promise<void>;
  /** The user's invoices, newest first. */
  list(userId: string, page: PageRequest): Promise<LocalInvoiceRecord[]>;
}
