import { BADGE_RANK } from '@stratbox/contract';
import { listingSortValue } from '../ports/store.js';
import type {
  BillingCustomerRecord,
  ListingRecord,
  ListingSearchPage,
  ListingSearchSort,
  LocalInvoiceRecord,
  PageRequest,
  PurchaseRecord,
  ReviewRecord,
  StoreRepositories,
  SubscriptionRecord,
  UsageCounterRecord,
} from '../ports/store.js';
import { definedFields, newestFirst, stableChange } from './memory-helpers.js';

/** The marketplace and billing part of the memory store's state. */
export interface MarketplaceBillingState {
  listings: Map<string, ListingRecord>;
  purchases: Map<string, PurchaseRecord>;
  reviews: Map<string, ReviewRecord>;
  /** By `JSON.stringify([userId, provider])`. */
  customers: Map<string, BillingCustomerRecord>;
  /** By user id. */
  subscriptions: Map<string, SubscriptionRecord>;
  /** `JSON.stringify([provider, eventId])`. */
  processedEvents: Set<string>;
  /** By `JSON.stringify([userId, periodStart])`. */
  usage: Map<string, UsageCounterRecord>;
  localInvoices: Map<string, LocalInvoiceRecord>;
}

export const emptyMarketplaceBillingState = (): MarketplaceBillingState => ({
  listings: new Map(),
  purchases: new Map(),
  reviews: new Map(),
  customers: new Map(),
  subscriptions: new Map(),
  processedEvents: new Set(),
  usage: new Map(),
  localInvoices: new Map(),
});

/** Maps copied, records shared (records are replaced, never mutated). */
export const cloneMarketplaceBillingState = (s: MarketplaceBillingState): MarketplaceBillingState => ({
  listings: new Map(s.listings),
  purchases: new Map(s.purchases),
  reviews: new Map(s.reviews),
  customers: new Map(s.customers),
  subscriptions: new Map(s.subscriptions),
  processedEvents: new Set(s.processedEvents),
  usage: new Map(s.usage),
  localInvoices: new Map(s.localInvoices),
});

type Change<T> = (state: MarketplaceBillingState) => T;
type MarketplaceBillingRepositories = Pick<
  StoreRepositories,
  'listings' | 'purchases' | 'reviews' | 'billingCustomers' | 'subscriptions' | 'processedEvents' | 'usageCounters' | 'localInvoices'
>;

const copy = <T>(value: T | undefined): T | null => (value === undefined ? null : structuredClone(value));
const key = (...parts: string[]) => JSON.stringify(parts);

/** A newest-first page of copies, so callers never hold the live records. */
const pageOfCopies = <T extends { createdAt: string; id: string }>(rows: Iterable<T>, page: PageRequest): T[] =>
  newestFirst(rows, page).map((r) => structuredClone(r));

/**
 * One page of `rows` in a record key's order: the figure highest first, nulls last, ties by
 * (createdAt desc, id desc); strictly after `page.after` (whose absent `value` is null).
 */
function sortedPage(rows: readonly ListingRecord[], sort: Exclude<ListingSearchSort, 'newest'>, page: ListingSearchPage): ListingRecord[] {
  const keyed = rows.map((l) => ({ l, v: listingSortValue(l, sort) }));
  /** Negative when (v, createdAt, id) of `a` comes before that of `b`. */
  const order = (a: { v: number | null; createdAt: string; id: string }, b: { v: number | null; createdAt: string; id: string }) => {
    if (a.v !== b.v) {
      if (a.v === null) return 1;
      if (b.v === null) return -1;
      return a.v > b.v ? -1 : 1;
    }
    if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt ? -1 : 1;
    return a.id === b.id ? 0 : a.id > b.id ? -1 : 1;
  };
  const after = page.after;
  const position = after && { v: after.value ?? null, createdAt: after.createdAt, id: after.id };
  return keyed
    .filter(({ l, v }) => !position || order({ v, createdAt: l.createdAt, id: l.id }, position) > 0)
    .sort((a, b) => order({ v: a.v, createdAt: a.l.createdAt, id: a.l.id }, { v: b.v, createdAt: b.l.createdAt, id: b.l.id }))
    .slice(0, page.limit)
    .map(({ l }) => l);
}

const stable = <T>(decide: (state: MarketplaceBillingState) => T, outcome: (result: T) => unknown): Change<T> => stableChange(decide, outcome);

/** The memory store's marketplace and billing repositories over `get()`; every change goes through `write`. */
export function memoryMarketplaceBillingRepositories(get: () => MarketplaceBillingState, write: <T>(change: Change<T>) => T): MarketplaceBillingRepositories {
  /** Inserts `record` unless a record `same` as it exists (false then); a taken id throws. */
  function insertIfAbsent<R extends { id: string }>(
    table: (s: MarketplaceBillingState) => Map<string, R>,
    record: R,
    what: string,
    same: (a: R, b: R) => boolean,
  ) {
    const value = structuredClone(record);
    return write(
      stable(
        (s) => {
          const rows = table(s);
          if (rows.has(value.id)) throw new Error(`Duplicate ${what} id`);
          for (const row of rows.values()) if (same(row, value)) return false;
          rows.set(value.id, value);
          return true;
        },
        (r) => r,
      ),
    );
  }

  /** Applies the defined fields of `patch` to the record `id` if `owner` of it is `ownerId` (false otherwise). */
  function updateOwned<R>(
    table: (s: MarketplaceBillingState) => Map<string, R>,
    owner: (r: R) => string,
    ownerId: string,
    id: string,
    patch: NoInfer<Partial<R>>,
  ) {
    const defined = structuredClone(definedFields(patch));
    return write(
      stable(
        (s) => {
          const rows = table(s);
          const r = rows.get(id);
          if (!r || owner(r) !== ownerId) return false;
          rows.set(id, { ...r, ...defined });
          return true;
        },
        (r) => r,
      ),
    );
  }

  return {
    listings: {
      async insert(listing) {
        const value = structuredClone({ ...listing, recordSummary: listing.recordSummary ?? null });
        write((s) => {
          if (s.listings.has(value.id)) throw new Error('Duplicate listing id');
          s.listings.set(value.id, value);
        });
      },
      async findById(id) {
        return copy(get().listings.get(id));
      },
      async findBySeller(sellerId, id) {
        const l = get().listings.get(id);
        return l && l.sellerId === sellerId ? copy(l) : null;
      },
      async update(sellerId, id, patch) {
        return updateOwned(
          (s) => s.listings,
          (l) => l.sellerId,
          sellerId,
          id,
          patch,
        );
      },
      async search(criteria, page) {
        const text = criteria.text?.toLowerCase();
        const tags = criteria.tags ?? [];
        const minBadgeRank = criteria.minBadgeRank ?? 0;
        const minForwardDays = criteria.minForwardDays ?? 0;
        const rows = [...get().listings.values()].filter(
          (l) =>
            l.status === 'listed' &&
            (text === undefined || l.name.toLowerCase().includes(text) || l.description.toLowerCase().includes(text)) &&
            tags.every((t) => l.tags.includes(t)) &&
            (minBadgeRank <= 0 || (l.recordSummary != null && BADGE_RANK[l.recordSummary.badge] >= minBadgeRank)) &&
            (minForwardDays <= 0 || (l.recordSummary != null && l.recordSummary.forwardDays >= minForwardDays)),
        );
        const sort = criteria.sort ?? 'newest';
        if (sort === 'newest') return pageOfCopies(rows, page);
        return sortedPage(rows, sort, page).map((l) => structuredClone(l));
      },
      async listBySeller(sellerId, page) {
        return pageOfCopies(
          [...get().listings.values()].filter((l) => l.sellerId === sellerId && l.status === 'listed'),
          page,
        );
      },
      async listByStrategy(sellerId, strategyId) {
        return pageOfCopies(
          [...get().listings.values()].filter((l) => l.sellerId === sellerId && l.strategyId === strategyId),
          { limit: Number.MAX_SAFE_INTEGER },
        );
      },
      async addRating(id, ratingDelta, countDelta) {
        return write(
          stable(
            (s) => {
              const l = s.listings.get(id);
              if (!l) return false;
              s.listings.set(id, { ...l, ratingSum: l.ratingSum + ratingDelta, reviewCount: l.reviewCount + countDelta });
              return true;
            },
            (r) => r,
          ),
        );
      },
      async setRecordSummary(id, summary) {
        const value = summary === null ? null : structuredClone(summary);
        return write(
          stable(
            (s) => {
              const l = s.listings.get(id);
              if (!l) return false;
              s.listings.set(id, { ...l, recordSummary: value });
              return true;
            },
            (r) => r,
          ),
        );
      },
      async incrementPurchaseCount(id) {
        return write(
          stable(
            (s) => {
              const l = s.listings.get(id);
              if (!l) return false;
              s.listings.set(id, { ...l, purchaseCount: l.purchaseCount + 1 });
              return true;
            },
            (r) => r,
          ),
        );
      },
    },

    purchases: {
      async insertIfAbsent(purchase) {
        return insertIfAbsent(
          (s) => s.purchases,
          purchase,
          'purchase',
          (a, b) => a.buyerId === b.buyerId && a.listingId === b.listingId,
        );
      },
      async findById(buyerId, id) {
        const p = get().purchases.get(id);
        return p && p.buyerId === buyerId ? copy(p) : null;
      },
      async findByListing(buyerId, listingId) {
        for (const p of get().purchases.values()) if (p.buyerId === buyerId && p.listingId === listingId) return copy(p);
        return null;
      },
      async list(buyerId, page) {
        return pageOfCopies(
          [...get().purchases.values()].filter((p) => p.buyerId === buyerId),
          page,
        );
      },
      async listCompletedForStrategy(buyerId, strategyId) {
        return pageOfCopies(
          [...get().purchases.values()].filter((p) => p.buyerId === buyerId && p.strategyId === strategyId && p.status === 'completed'),
          { limit: Number.MAX_SAFE_INTEGER },
        );
      },
      async listCompletedByListing(listingId, page) {
        return pageOfCopies(
          [...get().purchases.values()].filter((p) => p.listingId === listingId && p.status === 'completed'),
          page,
        );
      },
      async countPendingForStrategy(sellerId, strategyId) {
        return [...get().purchases.values()].filter((p) => p.sellerId === sellerId && p.strategyId === strategyId && p.status === 'pending').length;
      },
      async transition(id, from, patch) {
        const statuses = [...from];
        const defined = structuredClone(definedFields(patch));
        const updated = write(
          stable(
            (s) => {
              const p = s.purchases.get(id);
              if (!p || !statuses.includes(p.status)) return null;
              const next = { ...p, ...defined };
              s.purchases.set(id, next);
              return next;
            },
            (r) => r !== null,
          ),
        );
        return copy(updated ?? undefined);
      },
      async deleteIf(buyerId, id, from) {
        const statuses = [...from];
        return write(
          stable(
            (s) => {
              const p = s.purchases.get(id);
              if (!p || p.buyerId !== buyerId || !statuses.includes(p.status)) return false;
              s.purchases.delete(id);
              return true;
            },
            (r) => r,
          ),
        );
      },
    },

    reviews: {
      async insertIfAbsent(review) {
        return insertIfAbsent(
          (s) => s.reviews,
          review,
          'review',
          (a, b) => a.listingId === b.listingId && a.reviewerId === b.reviewerId,
        );
      },
      async findByReviewer(reviewerId, id) {
        const r = get().reviews.get(id);
        return r && r.reviewerId === reviewerId ? copy(r) : null;
      },
      async findByListing(reviewerId, listingId) {
        for (const r of get().reviews.values()) if (r.reviewerId === reviewerId && r.listingId === listingId) return copy(r);
        return null;
      },
      async update(reviewerId, id, patch) {
        return updateOwned(
          (s) => s.reviews,
          (r) => r.reviewerId,
          reviewerId,
          id,
          patch,
        );
      },
      async listByListing(listingId, page) {
        return pageOfCopies(
          [...get().reviews.values()].filter((r) => r.listingId === listingId),
          page,
        );
      },
    },

    billingCustomers: {
      async insertIfAbsent(customer) {
        const value = structuredClone(customer);
        const stored = write(
          stable(
            (s) => {
              const existing = s.customers.get(key(value.userId, value.provider));
              if (existing) return existing;
              for (const c of s.customers.values()) {
                if (c.provider === value.provider && c.customerId === value.customerId) throw new Error('Customer id belongs to another user');
              }
              s.customers.set(key(value.userId, value.provider), value);
              return value;
            },
            (r) => r.customerId,
          ),
        );
        return structuredClone(stored);
      },
      async findByUser(userId, provider) {
        return copy(get().customers.get(key(userId, provider)));
      },
      async findByCustomerId(provider, customerId) {
        for (const c of get().customers.values()) if (c.provider === provider && c.customerId === customerId) return copy(c);
        return null;
      },
    },

    subscriptions: {
      async findByUser(userId) {
        return copy(get().subscriptions.get(userId));
      },
      async putIfNotOlder(subscription) {
        const value = structuredClone(subscription);
        return write(
          stable(
            (s) => {
              const current = s.subscriptions.get(value.userId);
              if (current && current.eventCreatedAt > value.eventCreatedAt) return false;
              s.subscriptions.set(value.userId, value);
              return true;
            },
            (r) => r,
          ),
        );
      },
    },

    processedEvents: {
      async markProcessed(provider, eventId) {
        const k = key(provider, eventId);
        return write(
          stable(
            (s) => {
              if (s.processedEvents.has(k)) return false;
              s.processedEvents.add(k);
              return true;
            },
            (r) => r,
          ),
        );
      },
    },

    usageCounters: {
      async reserveBacktest(userId, period, limits, now) {
        const k = key(userId, period.start);
        const result = write(
          stable(
            (s) => {
              const row: UsageCounterRecord = s.usage.get(k) ?? {
                userId,
                periodStart: period.start,
                periodEnd: period.end,
                backtests: 0,
                computeMs: 0,
                updatedAt: now,
              };
              if (row.backtests >= limits.backtests || row.computeMs >= limits.computeMs) return null;
              const next = { ...row, backtests: row.backtests + 1, updatedAt: now };
              s.usage.set(k, next);
              return next;
            },
            (r) => r !== null,
          ),
        );
        return copy(result ?? undefined);
      },
      async releaseBacktest(userId, periodStart, now) {
        const k = key(userId, periodStart);
        return write((s) => {
          const row = s.usage.get(k);
          if (!row) return false;
          s.usage.set(k, { ...row, backtests: Math.max(0, row.backtests - 1), updatedAt: now });
          return true;
        });
      },
      async addComputeMs(userId, period, ms, now) {
        const k = key(userId, period.start);
        write((s) => {
          const row: UsageCounterRecord = s.usage.get(k) ?? {
            userId,
            periodStart: period.start,
            periodEnd: period.end,
            backtests: 0,
            computeMs: 0,
            updatedAt: now,
          };
          s.usage.set(k, { ...row, computeMs: row.computeMs + ms, updatedAt: now });
        });
      },
      async find(userId, periodStart) {
        return copy(get().usage.get(key(userId, periodStart)));
      },
    },

    localInvoices: {
      async insert(invoice) {
        const value = structuredClone(invoice);
        write((s) => {
          if (s.localInvoices.has(value.id)) throw new Error('Duplicate invoice id');
          s.localInvoices.set(value.id, value);
        });
      },
      async list(userId, page) {
        return pageOfCopies(
          [...get().localInvoices.values()].filter((i) => i.userId === userId),
          page,
        );
      },
    },
  };
}
