import { afterEach, beforeEach, describe, expect, it, afterAll } from 'vitest';
import { createBillingServices } from '../billing/create-billing-services.js';
import { StratboxError } from '../errors/stratbox-error.js';
import type { BillingProvider } from '../ports/billing-provider.js';
import type { Clock } from '../ports/clock.js';
import { createSilentLogger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import { createStrategyService } from '../strategies/strategy-service.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { createMarketplaceServices } from './create-marketplace-services.js';
import { loadRunnableSource, resolveRunnableStrategy } from './licences.js';
import { createSandboxPool } from '../backtests/engine/backtest-pool.js';
import { createSandboxStrategyRunner } from '../backtests/sandbox-strategy-runner.js';

/** Inspects listed versions for their verification records (a real sandbox). */
const testRunner = createSandboxStrategyRunner(createSandboxPool({ size: 1 }));
afterAll(() => testRunner.close());

const SOURCE = '// SECRET-EDGE-7f3a\nexport function onCandle(ctx, c) { if (c.close > 42) ctx.buy(c.symbol, { quantity: 1 }); }\n';

describe('marketplace services', () => {
  let store: Store;
  /** Every reading is a millisecond later, so records created one after another order newest first. */
  let tick = Date.UTC(2026, 2, 1);
  const clock: Clock = { now: () => new Date((tick += 1)) };
  const logger = createSilentLogger();
  let seller: string;
  let buyer: string;
  let other: string;

  function setup(provider?: BillingProvider) {
    const billing = createBillingServices({ store, clock, logger, ...(provider ? { provider } : {}) });
    const marketplace = createMarketplaceServices({ store, clock, logger, billing, strategyRunner: testRunner });
    const strategies = createStrategyService({ store, clock });
    return { billing, strategies, ...marketplace };
  }

  const listingBody = (strategyId: string, overrides: Record<string, unknown> = {}) => ({
    strategyId,
    name: 'Trend rider',
    description: 'Follows the trend',
    price: 0,
    tags: ['trend', 'btc'],
    ...overrides,
  });

  beforeEach(() => {
    store = createMemoryStore();
    [seller, buyer, other] = [newId('user'), newId('user'), newId('user')];
  });
  afterEach(() => store.close());

  describe('listings', () => {
    it("publishes one of your strategies at its current version; someone else's strategy is a 404", async () => {
      const { strategies, listings } = setup();
      const s = await strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'LINEAR' });
      await strategies.update(seller, s.id, { source: `${SOURCE}// v2\n` });
      const listing = await listings.create(seller, listingBody(s.id, { tags: ['trend', 'btc', 'trend'], price: 1_999 }));
      expect(listing).toMatchObject({
        strategyId: s.id,
        strategyVersion: 2,
        sellerId: seller,
        price: 1_999,
        tags: ['trend', 'btc'],
        averageRating: null,
        reviewCount: 0,
        purchaseCount: 0,
      });
      expect(listing.id).toMatch(/^lst_/);
      expect(JSON.stringify(listing)).not.toContain('SECRET-EDGE');
      await expect(listings.create(other, listingBody(s.id))).rejects.toMatchObject({ code: 'NOT_FOUND', message: `Strategy ${s.id} not found` });
      expect(await listings.get(other, listing.id)).toEqual(listing);
    });

    it('lets only the seller update or unlist; others get the 404 of a missing listing', async () => {
      const { strategies, listings } = setup();
      const s = await strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'LINEAR' });
      const listing = await listings.create(seller, listingBody(s.id));
      await expect(listings.update(other, listing.id, { name: 'Stolen' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: `Listing ${listing.id} not found`,
      });
      await expect(listings.unlist(other, listing.id)).rejects.toMatchObject({ code: 'NOT_FOUND', message: `Listing ${listing.id} not found` });
      expect(await listings.get(seller, listing.id)).toEqual(listing);

      await strategies.update(seller, s.id, { source: `${SOURCE}// v2\n` });
      await expect(listings.update(seller, listing.id, { strategyVersion: 9 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const updated = await listings.update(seller, listing.id, { strategyVersion: 2, price: 500, tags: ['Mean-Rev'] });
      expect(updated).toMatchObject({ strategyVersion: 2, price: 500, tags: ['mean-rev'], name: 'Trend rider' });
      expect(await listings.get(other, listing.id)).toEqual(updated);

      await listings.unlist(seller, listing.id);
      await expect(listings.get(seller, listing.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(listings.unlist(seller, listing.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await listings.myListings(seller, {})).listings).toEqual([]);
    });

    it('searches by text and by all of several tags, newest first, page by page', async () => {
      const { strategies, listings } = setup();
      const s = await strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'LINEAR' });
      const a = await listings.create(seller, listingBody(s.id, { name: 'Breakout Hunter', tags: ['btc', 'breakout'] }));
      const b = await listings.create(seller, listingBody(s.id, { name: 'Calm', description: 'A BREAKOUT filter', tags: ['eth', 'breakout'] }));
      const c = await listings.create(seller, listingBody(s.id, { name: 'Grid', tags: ['btc', 'grid'] }));
      const ids = (r: { listings: Array<{ id: string }> }) => r.listings.map((l) => l.id);
      expect(ids(await listings.search(buyer, { search: 'breakout' }))).toEqual([b.id, a.id]);
      expect(ids(await listings.search(buyer, { tags: 'btc' }))).toEqual([c.id, a.id]);
      expect(ids(await listings.search(buyer, { tags: ' BTC , breakout ,' }))).toEqual([a.id]);
      expect(ids(await listings.search(buyer, { search: 'grid', tags: 'breakout' }))).toEqual([]);
      const first = await listings.search(buyer, { limit: 2 });
      expect(ids(first)).toEqual([c.id, b.id]);
      expect(ids(await listings.search(buyer, { limit: 2, cursor: first.nextCursor! }))).toEqual([a.id]);
      await expect(listings.search(buyer, { tags: Array.from({ length: 11 }, (_, i) => `t${i}`).join(',') })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      await expect(listings.search(buyer, { tags: 'no spaces allowed' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    });
  });

  describe('purchases and licences', () => {
    it('buys a free listing at once; own listing is 403; twice is 409, also when concurrent', async () => {
      const { strategies, listings, purchases } = setup();
      const s = await strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'LINEAR' });
      const listing = await listings.create(seller, listingBody(s.id));
      await expect(purchases.purchase(seller, listing.id)).rejects.toMatchObject({ code: 'FORBIDDEN', status: 403 });
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => purchases.purchase(buyer, listing.id)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected'))
        expect(r.reason).toMatchObject({ code: 'CONFLICT', status: 409 });
      const [bought] = (await purchases.list(buyer, {})).purchases;
      expect(bought).toMatchObject({ listingId: listing.id, strategyId: s.id, strategyVersion: 1, price: 0, status: 'completed', checkoutUrl: null });
      expect((await listings.get(buyer, listing.id)).purchaseCount).toBe(1);
      expect((await purchases.list(other, {})).purchases).toEqual([]);
      await expect(purchases.purchase(buyer, newId('listing'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('buys a paid listing through the local provider at once, with an invoice', async () => {
      const { strategies, listings, purchases, billing } = setup();
      const s = await strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'LINEAR' });
      const listing = await listings.create(seller, listingBody(s.id, { price: 4_200 }));
      expect(await purchases.purchase(buyer, listing.id)).toMatchObject({ status: 'completed', price: 4_200, checkoutUrl: null });
      const { invoices } = await billing.subscriptions.invoices(buyer, {});
      expect(invoices).toEqual([expect.objectContaining({ amountPaid: 4_200, status: 'paid' })]);
      expect((await billing.subscriptions.invoices(seller, {})).invoices).toEqual([]);
    });

    it('a provider outage is a 503 and leaves no purchase behind', async () => {
      const down: BillingProvider = {
        name: 'down',
        ensureCustomer: async () => {
          throw new StratboxError('UNAVAILABLE', 'The payment provider is unavailable; try again later');
        },
        createSubscriptionCheckout: async () => {
          throw new StratboxError('UNAVAILABLE', 'The payment provider is unavailable; try again later');
        },
        createPurchaseCheckout: async () => {
          throw new StratboxError('UNAVAILABLE', 'The payment provider is unavailable; try again later');
        },
        createPortalSession: async () => {
          throw new StratboxError('UNAVAILABLE', 'down');
        },
        listInvoices: async () => ({ invoices: [], nextCursor: null }),
        parseWebhook: async () => {
          throw new StratboxError('VALIDATION_FAILED', 'Invalid webhook signature');
        },
      };
      const { strategies, listings, purchases } = setup(down);
      const s = await strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'LINEAR' });
      const listing = await listings.create(seller, listingBody(s.id, { price: 100 }));
      await expect(purchases.purchase(buyer, listing.id)).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 503 });
      expect((await purchases.list(buyer, {})).purchases).toEqual([]);
      expect((await listings.get(buyer, listing.id)).purchaseCount).toBe(0);
      // A free listing does not need the provider.
      const free = await listings.create(seller, listingBody(s.id, { price: 0 }));
      expect(await purchases.purchase(buyer, free.id)).toMatchObject({ status: 'completed' });
    });

    it('grants a run-only licence: the buyer can resolve and run the version, never read the source', async () => {
      const { strategies, listings, purchases, licences } = setup();
      const s = await strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'SPOT' });
      const listing = await listings.create(seller, listingBody(s.id));
      await expect(licences.resolve(buyer, listing.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(licences.resolve(buyer, s.id)).rejects.toMatchObject({ code: 'NOT_FOUND', message: `Strategy ${s.id} not found` });
      await purchases.purchase(buyer, listing.id);

      const expected = { ownerId: seller, strategyId: s.id, version: 1, canReadSource: false, listingId: listing.id, marketType: 'SPOT' };
      expect(await licences.resolve(buyer, listing.id)).toEqual(expected);
      expect(await licences.resolve(buyer, s.id)).toEqual(expected);
      expect((await licences.loadSource(buyer, s.id, 1)).source).toBe(SOURCE);
      // Strategy endpoints stay the owner's: the buyer gets the 404 of a missing strategy.
      await expect(strategies.get(buyer, s.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(strategies.getSource(buyer, s.id, 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });

      // The seller publishes v2: the buyer runs it; v1 stays runnable; v3 (not published) is not.
      await strategies.update(seller, s.id, { source: `${SOURCE}// v2\n` });
      await strategies.update(seller, s.id, { source: `${SOURCE}// v3\n` });
      await listings.update(seller, listing.id, { strategyVersion: 2 });
      expect((await licences.resolve(buyer, s.id)).version).toBe(2);
      expect((await licences.loadSource(buyer, s.id, 2)).source).toContain('// v2');
      expect((await licences.loadSource(buyer, s.id, 1)).source).toBe(SOURCE);
      await expect(licences.loadSource(buyer, s.id, 3)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      // Unlisting keeps the licence.
      await listings.unlist(seller, listing.id);
      expect((await licences.resolve(buyer, listing.id)).version).toBe(2);
      // Another user has none; the seller reads their own.
      await expect(resolveRunnableStrategy(store, other, listing.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(loadRunnableSource(store, other, s.id, 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await licences.resolve(seller, s.id)).toMatchObject({ ownerId: seller, version: 3, canReadSource: true });
      expect(await licences.resolve(seller, listing.id)).toMatchObject({ ownerId: seller, version: 2, canReadSource: true });
      for (const error of await Promise.all([
        licences.resolve(other, s.id).catch((e: Error) => e),
        licences.loadSource(other, s.id, 1).catch((e: Error) => e),
      ])) {
        expect(JSON.stringify(error)).not.toContain('SECRET-EDGE');
        expect(String((error as Error).message)).not.toContain('SECRET-EDGE');
      }
    });
  });

  describe('reviews', () => {
    it('lets buyers review once, edit their own, and keeps the average in step', async () => {
      const { strategies, listings, purchases, reviews } = setup();
      const s = await strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'LINEAR' });
      const listing = await listings.create(seller, listingBody(s.id));
      const third = newId('user');
      await purchases.purchase(buyer, listing.id);
      await purchases.purchase(third, listing.id);

      await expect(reviews.create(seller, listing.id, { rating: 5, text: 'mine is great' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(reviews.create(other, listing.id, { rating: 1, text: 'never bought it' })).rejects.toMatchObject({ code: 'FORBIDDEN', status: 403 });
      const text = '<img src=x onerror=alert(1)> "quoted" & ✓';
      const mine = await reviews.create(buyer, listing.id, { rating: 4, text });
      expect(mine).toMatchObject({ listingId: listing.id, reviewerId: buyer, rating: 4, text });
      await expect(reviews.create(buyer, listing.id, { rating: 5, text: 'again' })).rejects.toMatchObject({
        code: 'CONFLICT',
        status: 409,
        details: { reviewId: mine.id },
      });
      await reviews.create(third, listing.id, { rating: 1, text: 'meh' });
      expect(await listings.get(other, listing.id)).toMatchObject({ averageRating: 2.5, reviewCount: 2 });

      await expect(reviews.update(third, listing.id, mine.id, { rating: 1, text: 'hijack' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: `Review ${mine.id} not found`,
      });
      await expect(reviews.update(buyer, newId('listing'), mine.id, { rating: 1, text: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const edited = await reviews.update(buyer, listing.id, mine.id, { rating: 5, text: 'better now' });
      expect(edited).toMatchObject({ id: mine.id, rating: 5, text: 'better now', createdAt: mine.createdAt });
      expect(await listings.get(other, listing.id)).toMatchObject({ averageRating: 3, reviewCount: 2 });

      const list = await reviews.list(other, listing.id, {});
      expect(list.reviews.map((r) => [r.reviewerId, r.rating])).toEqual(
        [...list.reviews]
          .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
          .map((r) => [r.reviewerId, r.rating]),
      );
      expect(list.reviews.find((r) => r.id === mine.id)?.text).toBe('better now');
      await expect(reviews.list(other, newId('listing'), {})).rejects.toMatchObject({ code: 'NOT_FOUND' });

      // mine: only the caller's own review, a list of zero or one.
      expect(await reviews.list(buyer, listing.id, { mine: 'true' })).toEqual({ reviews: [edited], nextCursor: null });
      expect(await reviews.list(other, listing.id, { mine: 'true' })).toEqual({ reviews: [], nextCursor: null });
      expect(await reviews.list(seller, listing.id, { mine: 'true' })).toEqual({ reviews: [], nextCursor: null });
      expect((await reviews.list(buyer, listing.id, { mine: 'false' })).reviews).toHaveLength(2);
      await expect(reviews.list(buyer, newId('listing'), { mine: 'true' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('keeps count and average exact under concurrent reviews', async () => {
      const { strategies, listings, purchases, reviews } = setup();
      const s = await strategies.create(seller, { name: 'S', description: '', source: SOURCE, marketType: 'LINEAR' });
      const listing = await listings.create(seller, listingBody(s.id));
      const buyers = Array.from({ length: 10 }, () => newId('user'));
      for (const b of buyers) await purchases.purchase(b, listing.id);
      await Promise.all(buyers.map((b, i) => reviews.create(b, listing.id, { rating: (i % 5) + 1, text: `r${i}` })));
      expect(await listings.get(other, listing.id)).toMatchObject({ reviewCount: 10, averageRating: 3, purchaseCount: 10 });
    });
  });
});
