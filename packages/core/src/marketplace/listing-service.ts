import type { z } from 'zod';
import { BADGE_RANK, CreateListingBody, UpdateListingBody, type SearchListingsQuery } from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { ListingPatch, ListingRecord, ListingSearch, Store, StoreRepositories, VerificationRecordRow } from '../ports/store.js';
import type { StrategyRunner } from '../ports/strategy-runner.js';
import { DEFAULT_PAGE_SIZE, paginate } from '../util/cursor.js';
import { newId } from '../util/ids.js';
import { toListingView, type ListingView } from './marketplace-views.js';
import { parseInput } from '../util/validate.js';
import { checkVerificationSymbols } from './listing-verification.js';
import { decodeSearchCursor, encodeSearchCursor } from './search-cursor.js';
import { newVerificationRecord } from './verification/start-record.js';
import { nextUpdatedAt, summaryOf } from './verification/record-views.js';
import type { VerificationSettings } from './verification/verification-settings.js';

export interface ListingServiceDeps {
  store: Store;
  clock: Clock;
  /** Reads what a listed version declares (its timeframe and parameter defaults), for its verification record. */
  strategyRunner: Pick<StrategyRunner, 'inspect'>;
  /** How the platform verifies listings (resolved: `resolveVerificationSettings`). */
  verification: VerificationSettings;
  /** Called after a new verification record was committed (a listing or a new version), so the platform runs it soon. */
  onRecordCreated?: () => void;
}

/** At most this many tags on a listing and in a search. */
export const MAX_TAGS = 10;
const TAG = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** Lower-case, trimmed, each once, in the order given. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];
}

/**
 * The `tags` query parameter: comma-separated, case-insensitive, blanks ignored, at most 10
 * distinct tags, each as on a listing (1-32 letters, digits or dashes). A listing must carry
 * every one of them.
 */
export function parseTagsQuery(tags: string | undefined): string[] {
  if (tags === undefined) return [];
  const parsed = normalizeTags(tags.split(','));
  if (parsed.length > MAX_TAGS) {
    throw new StratboxError('VALIDATION_FAILED', `At most ${MAX_TAGS} tags can be searched at once`, [
      { path: 'query.tags', message: `At most ${MAX_TAGS} tags` },
    ]);
  }
  const bad = parsed.find((t) => !TAG.test(t));
  if (bad !== undefined) {
    throw new StratboxError('VALIDATION_FAILED', `Invalid tag "${bad.slice(0, 40)}"`, [
      { path: 'query.tags', message: 'Tags are 1-32 letters, digits or dashes' },
    ]);
  }
  return parsed;
}

export type ListingService = ReturnType<typeof createListingService>;

/**
 * Marketplace listings. A listing sells one pinned version of one of the seller's strategies
 * (its source is never shown to anyone through the listing). Anyone authenticated can browse
 * listed listings; only the seller can update or unlist theirs (another user gets 404, as for
 * a missing listing). Unlisting hides the listing from everyone (404) and from search, while
 * its buyers keep their run-only licences.
 */
export function createListingService({ store, clock, strategyRunner, verification, onRecordCreated }: ListingServiceDeps) {
  const recordDeps = { store, strategyRunner, settings: verification };

  /**
   * Marks the listing's current record superseded at `now` (inside the caller's transaction). The
   * verification loop may change the record meanwhile (its compare-and-set token moves): read it
   * again and retry.
   */
  async function supersedeCurrent(tx: StoreRepositories, listingId: string, now: string): Promise<VerificationRecordRow | null> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = (await tx.verificationRecords.listByListing(listingId)).find((r) => r.supersededAt === null);
      if (!current) return null;
      const updated = await tx.verificationRecords.update(current.id, current.updatedAt, {
        supersededAt: now,
        updatedAt: nextUpdatedAt(current.updatedAt, new Date(now)),
      });
      if (updated) return updated;
    }
    throw new StratboxError('CONFLICT', `The verification record of listing ${listingId} is changing; try again`);
  }

  async function loadOwn(repos: StoreRepositories, sellerId: string, id: string, forUpdate = false): Promise<ListingRecord> {
    const listing = await repos.listings.findBySeller(sellerId, id, { forUpdate });
    if (!listing || listing.status !== 'listed') throw notFound('Listing', id);
    return listing;
  }

  return {
    /** Publishes one of the caller's strategies at its current version. Someone else's strategy is a 404. */
    async create(userId: string, input: z.input<typeof CreateListingBody>): Promise<ListingView> {
      const body = parseInput(CreateListingBody, input, 'body');
      const strategy = await store.strategies.findById(userId, body.strategyId);
      if (!strategy) throw notFound('Strategy', body.strategyId);
      checkVerificationSymbols(strategy.marketType, body.symbols);
      const now = clock.now().toISOString();
      const listingId = newId('listing');
      // Built before the transaction (it inspects the source in the sandbox); stored with the listing.
      const record = await newVerificationRecord(recordDeps, {
        listingId,
        sellerId: userId,
        strategyId: strategy.id,
        strategyVersion: strategy.version,
        symbols: body.symbols,
        timeframe: body.timeframe,
        listedAt: now,
      });
      const listing: ListingRecord = {
        id: listingId,
        sellerId: userId,
        strategyId: strategy.id,
        strategyVersion: strategy.version,
        name: body.name,
        description: body.description,
        price: body.price,
        tags: normalizeTags(body.tags),
        ratingSum: 0,
        reviewCount: 0,
        purchaseCount: 0,
        status: 'listed',
        createdAt: now,
        updatedAt: now,
        recordSummary: summaryOf(record),
      };
      await store.transaction(async (tx) => {
        await tx.listings.insert(listing);
        await tx.verificationRecords.insert(record);
      });
      onRecordCreated?.();
      return toListingView(listing);
    },

    /** One listed listing; unlisted or missing is a 404. */
    async get(_userId: string, id: string): Promise<ListingView> {
      const listing = await store.listings.findById(id);
      if (!listing || listing.status !== 'listed') throw notFound('Listing', id);
      return toListingView(listing);
    },

    /**
     * Changes the seller's listing. `strategyVersion` publishes another existing version of the
     * strategy (buyers then run that version). Another user's listing is a 404.
     */
    async update(userId: string, id: string, input: z.input<typeof UpdateListingBody>): Promise<ListingView> {
      const body = parseInput(UpdateListingBody, input, 'body');
      const before = await loadOwn(store, userId, id);
      const now = clock.now().toISOString();
      let record: VerificationRecordRow | null = null;
      if (body.strategyVersion !== undefined && body.strategyVersion !== before.strategyVersion) {
        const version = await store.strategies.getVersion(userId, before.strategyId, body.strategyVersion);
        if (!version) throw new StratboxError('NOT_FOUND', `Strategy ${before.strategyId} has no version ${body.strategyVersion}`);
        // The new version is verified where the listing was: the current record's symbols and timeframe.
        const previous = (await store.verificationRecords.listByListing(id)).find((r) => r.supersededAt === null);
        record = await newVerificationRecord(recordDeps, {
          listingId: id,
          sellerId: userId,
          strategyId: before.strategyId,
          strategyVersion: body.strategyVersion,
          symbols: previous?.identity.symbols,
          timeframe: previous?.identity.timeframe,
          listedAt: now,
        });
      }
      const view = await store.transaction(async (tx) => {
        const current = await loadOwn(tx, userId, id, true);
        const publishes = record !== null && current.strategyVersion !== record.identity.strategyVersion;
        const patch: ListingPatch = { updatedAt: now };
        if (body.name !== undefined) patch.name = body.name;
        if (body.description !== undefined) patch.description = body.description;
        if (body.price !== undefined) patch.price = body.price;
        if (body.tags !== undefined) patch.tags = normalizeTags(body.tags);
        if (body.strategyVersion !== undefined) patch.strategyVersion = body.strategyVersion;
        await tx.listings.update(userId, id, patch);
        let recordSummary = current.recordSummary ?? null;
        if (record && publishes) {
          // A new version: a new record; the previous one is superseded and stays in the lineage.
          await supersedeCurrent(tx, id, now);
          await tx.verificationRecords.insert(record);
          recordSummary = summaryOf(record);
          await tx.listings.setRecordSummary(id, recordSummary);
        }
        return toListingView({ ...current, ...patch, recordSummary } as ListingRecord);
      });
      if (record) onRecordCreated?.();
      return view;
    },

    /** Unlists the seller's listing (204); buyers keep their licences. Another user's listing is a 404. */
    async unlist(userId: string, id: string): Promise<void> {
      await store.transaction(async (tx) => {
        await loadOwn(tx, userId, id, true);
        await tx.listings.update(userId, id, { status: 'unlisted', updatedAt: clock.now().toISOString() });
      });
    },

    /**
     * `GET /api/marketplace`: listed listings, newest first. `search` matches the name or the
     * description as a case-insensitive substring; `tags` is comma-separated and a listing must
     * carry all of them; given both, both apply.
     */
    async search(_userId: string, query: z.output<typeof SearchListingsQuery>) {
      const text = query.search?.trim();
      const tags = parseTagsQuery(query.tags);
      const sort = query.sort ?? 'newest';
      const criteria: ListingSearch = {
        ...(text ? { text } : {}),
        ...(tags.length > 0 ? { tags } : {}),
        sort,
        ...(query.minBadge !== undefined ? { minBadgeRank: BADGE_RANK[query.minBadge] } : {}),
        ...(query.minForwardDays !== undefined ? { minForwardDays: query.minForwardDays } : {}),
      };
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const after = decodeSearchCursor(query.cursor, sort);
      const rows = await store.listings.search(criteria, after ? { limit: limit + 1, after } : { limit: limit + 1 });
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return { listings: items.map(toListingView), nextCursor: rows.length > limit && last ? encodeSearchCursor(last, sort) : null };
    },

    /** The caller's listed listings, newest first. */
    async myListings(userId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
      const page = await paginate(query, (p) => store.listings.listBySeller(userId, p));
      return { listings: page.items.map(toListingView), nextCursor: page.nextCursor };
    },
  };
}
