import type { z } from 'zod';
import { CreateListingBody, UpdateListingBody } from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { ListingPatch, ListingRecord, Store, StoreRepositories } from '../ports/store.js';
import { paginate } from '../util/cursor.js';
import { newId } from '../util/ids.js';
import { toListingView, type ListingView } from './marketplace-views.js';
import { parseInput } from '../util/validate.js';

export interface ListingServiceDeps {
  store: Store;
  clock: Clock;
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
export function createListingService({ store, clock }: ListingServiceDeps) {
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
      const now = clock.now().toISOString();
      const listing: ListingRecord = {
        id: newId('listing'),
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
      };
      await store.listings.insert(listing);
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
      return store.transaction(async (tx) => {
        const current = await loadOwn(tx, userId, id, true);
        if (body.strategyVersion !== undefined && body.strategyVersion !== current.strategyVersion) {
          const version = await tx.strategies.getVersion(userId, current.strategyId, body.strategyVersion);
          if (!version) throw new StratboxError('NOT_FOUND', `Strategy ${current.strategyId} has no version ${body.strategyVersion}`);
        }
        const patch: ListingPatch = { updatedAt: clock.now().toISOString() };
        if (body.name !== undefined) patch.name = body.name;
        if (body.description !== undefined) patch.description = body.description;
        if (body.price !== undefined) patch.price = body.price;
        if (body.tags !== undefined) patch.tags = normalizeTags(body.tags);
        if (body.strategyVersion !== undefined) patch.strategyVersion = body.strategyVersion;
        await tx.listings.update(userId, id, patch);
        return toListingView({ ...current, ...patch } as ListingRecord);
      });
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
    async search(_userId: string, query: { search?: string | undefined; tags?: string | undefined; limit?: number | undefined; cursor?: string | undefined }) {
      const text = query.search?.trim();
      const tags = parseTagsQuery(query.tags);
      const criteria = { ...(text ? { text } : {}), ...(tags.length > 0 ? { tags } : {}) };
      const page = await paginate(query, (p) => store.listings.search(criteria, p));
      return { listings: page.items.map(toListingView), nextCursor: page.nextCursor };
    },

    /** The caller's listed listings, newest first. */
    async myListings(userId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
      const page = await paginate(query, (p) => store.listings.listBySeller(userId, p));
      return { listings: page.items.map(toListingView), nextCursor: page.nextCursor };
    },
  };
}
