import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { at, byNewestFirst, readAllPages, tieIds, uid } from './contract-fixtures.js';

/** Every row of a newest-first list, read page by page. */
const readAllRows = async <T extends ListPosition>(fetch: (page: PageRequest) => Promise<T[]>, limit: number) => (await readAllPages(fetch, limit)).flat();
import type { ListingRecord, ListPosition, LocalInvoiceRecord, PageRequest, PurchaseRecord, ReviewRecord, Store, SubscriptionRecord } from '../ports/store.js';

/*
 * The Store contract of the marketplace and billing repositories (listings, purchases, reviews,
 * billing customers, subscriptions, processed events, usage counters, local invoices), run by
 * `describeStoreContract` inside its own describe blocks with the same shared store and users.
 * Search is across sellers, so every search test uses its own random words and tags.
 */

/** What the enclosing suite gives each test: the shared store, the test's owner and another user. */
export type MarketplaceBillingContext = () => { store: Store; userId: string; otherUserId: string };

/** A random lower-case word (letters only), unique to a test. */
const word = () =>
  `w${randomBytes(8)
    .toString('hex')
    .replace(/[0-9]/g, (d) => 'ghijklmnop'[Number(d)]!)}`;

function listing(sellerId: string, overrides: Partial<ListingRecord> = {}): ListingRecord {
  return {
    id: uid('lst'),
    sellerId,
    strategyId: uid('str'),
    strategyVersion: 3,
    name: 'Trend follower',
    description: 'Rides trends',
    price: 4_900,
    tags: ['trend', 'btc'],
    ratingSum: 0,
    reviewCount: 0,
    purchaseCount: 0,
    status: 'listed',
    createdAt: at(0),
    updatedAt: at(0),
    recordSummary: null,
    ...overrides,
  };
}

function purchase(buyerId: string, overrides: Partial<PurchaseRecord> = {}): PurchaseRecord {
  return {
    id: uid('pur'),
    buyerId,
    listingId: uid('lst'),
    sellerId: uid('usr'),
    strategyId: uid('str'),
    strategyVersion: 2,
    price: 1_500,
    status: 'pending',
    checkoutSessionId: `cs_${randomBytes(8).toString('hex')}`,
    checkoutUrl: 'https://checkout.example/pay',
    createdAt: at(0),
    updatedAt: at(0),
    completedAt: null,
    ...overrides,
  };
}

function review(reviewerId: string, listingId: string, overrides: Partial<ReviewRecord> = {}): ReviewRecord {
  return { id: uid('rev'), listingId, reviewerId, rating: 4, text: 'Solid', createdAt: at(0), updatedAt: at(0), ...overrides };
}

function subscription(userId: string, overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord {
  return {
    userId,
    provider: 'stripe',
    subscriptionId: `sub_${randomBytes(6).toString('hex')}`,
    customerId: `cus_${randomBytes(6).toString('hex')}`,
    tier: 'pro',
    status: 'active',
    currentPeriodStart: at(0),
    currentPeriodEnd: at(30 * 86_400),
    cancelAtPeriodEnd: false,
    eventCreatedAt: at(10),
    updatedAt: at(10),
    ...overrides,
  };
}

function invoice(userId: string, overrides: Partial<LocalInvoiceRecord> = {}): LocalInvoiceRecord {
  return {
    id: uid('in'),
    userId,
    number: 'LOCAL-0001',
    status: 'paid',
    amountDue: 2_900,
    amountPaid: 2_900,
    currency: 'usd',
    description: 'Stratbox Pro',
    hostedUrl: 'http://localhost/invoices/1',
    pdfUrl: null,
    createdAt: at(0),
    ...overrides,
  };
}

const period = (n = 0) => ({ start: new Date(Date.UTC(2026, n, 1)).toISOString(), end: new Date(Date.UTC(2026, n + 1, 1)).toISOString() });

export function describeMarketplaceBillingContract(context: MarketplaceBillingContext): void {
  describe('listings', () => {
    it('finds an inserted listing by id, as stored, and by its seller only', async () => {
      const { store, userId, otherUserId } = context();
      const record = listing(userId, { name: 'Grid ✓ "quoted" \\ Ünïcode', description: 'Line\nTwo', tags: ['zeta', 'alpha', 'mid-1'], price: 0 });
      await store.listings.insert(record);
      expect(await store.listings.findById(record.id)).toEqual(record);
      expect(await store.listings.findBySeller(userId, record.id)).toEqual(record);
      expect(await store.listings.findBySeller(otherUserId, record.id)).toBeNull();
      expect(await store.transaction((tx) => tx.listings.findBySeller(userId, record.id, { forUpdate: true }))).toEqual(record);
      expect(await store.listings.findById(uid('lst'))).toBeNull();
    });

    it('throws when the id exists, and keeps the first', async () => {
      const { store, userId } = context();
      const record = listing(userId);
      await store.listings.insert(record);
      await expect(store.listings.insert({ ...record, name: 'Second' })).rejects.toThrow();
      expect(await store.listings.findById(record.id)).toEqual(record);
    });

    it("updates only the given fields of the seller's listing; another seller gets false", async () => {
      const { store, userId, otherUserId } = context();
      const tag = word();
      const record = listing(userId, { tags: [tag, 'keep'] });
      await store.listings.insert(record);
      expect(await store.listings.update(otherUserId, record.id, { name: 'Hijacked', status: 'unlisted' })).toBe(false);
      expect(await store.listings.findById(record.id)).toEqual(record);
      expect(await store.listings.update(userId, uid('lst'), { name: 'x' })).toBe(false);
      expect(await store.listings.update(userId, record.id, {})).toBe(true);
      const newTag = word();
      expect(await store.listings.update(userId, record.id, { name: 'Renamed', tags: [newTag], strategyVersion: 4, price: 100, updatedAt: at(5) })).toBe(true);
      const updated = { ...record, name: 'Renamed', tags: [newTag], strategyVersion: 4, price: 100, updatedAt: at(5) };
      expect(await store.listings.findById(record.id)).toEqual(updated);
      // Tags are replaced for search too.
      expect(await store.listings.search({ tags: [tag] }, { limit: 10 })).toEqual([]);
      expect(await store.listings.search({ tags: [newTag] }, { limit: 10 })).toEqual([updated]);
      expect(await store.listings.update(userId, record.id, { description: undefined, status: 'unlisted' })).toBe(true);
      expect((await store.listings.findById(record.id))?.status).toBe('unlisted');
    });

    it('searches name or description case-insensitively, literally, and only listed listings', async () => {
      const { store, userId, otherUserId } = context();
      const w = word();
      const inName = listing(userId, { name: `Alpha ${w.toUpperCase()} one`, createdAt: at(1) });
      const inDescription = listing(otherUserId, { description: `about ${w[0]!.toUpperCase()}${w.slice(1)} here`, createdAt: at(2) });
      const unlisted = listing(userId, { name: w, status: 'unlisted', createdAt: at(3) });
      const other = listing(userId, { name: 'unrelated', createdAt: at(4) });
      const percent = listing(userId, { name: `100% ${w}_x`, createdAt: at(5) });
      for (const r of [inName, inDescription, unlisted, other, percent]) await store.listings.insert(r);
      expect(await store.listings.search({ text: w }, { limit: 50 })).toEqual([percent, inDescription, inName]);
      expect(await store.listings.search({ text: w.toUpperCase() }, { limit: 50 })).toEqual([percent, inDescription, inName]);
      expect(await store.listings.search({ text: `0% ${w}_` }, { limit: 50 })).toEqual([percent]);
      expect(await store.listings.search({ text: `${w}%` }, { limit: 50 })).toEqual([]);
      expect(await store.listings.search({ text: `${w.slice(0, 4)}_${w.slice(5)}` }, { limit: 50 })).toEqual([]);
      const unicode = listing(userId, { name: `ÉCOLE ${w}` });
      await store.listings.insert(unicode);
      expect(await store.listings.search({ text: `école ${w}` }, { limit: 50 })).toEqual([unicode]);
    });

    it('requires every given tag, and combines tags with text', async () => {
      const { store, userId } = context();
      const [a, b, c] = [word(), word(), word()];
      const ab = listing(userId, { name: 'both', tags: [a, b], createdAt: at(1) });
      const abc = listing(userId, { name: 'all three match', tags: [c, b, a], createdAt: at(2) });
      const onlyA = listing(userId, { name: 'only a', tags: [a], createdAt: at(3) });
      const unlisted = listing(userId, { tags: [a, b], status: 'unlisted', createdAt: at(4) });
      for (const r of [ab, abc, onlyA, unlisted]) await store.listings.insert(r);
      expect(await store.listings.search({ tags: [a] }, { limit: 50 })).toEqual([onlyA, abc, ab]);
      expect(await store.listings.search({ tags: [a, b] }, { limit: 50 })).toEqual([abc, ab]);
      expect(await store.listings.search({ tags: [b, a, c] }, { limit: 50 })).toEqual([abc]);
      expect(await store.listings.search({ tags: [a, word()] }, { limit: 50 })).toEqual([]);
      expect(await store.listings.search({ tags: [a, b], text: 'MATCH' }, { limit: 50 })).toEqual([abc]);
      expect(await store.listings.search({ tags: [a], text: 'only' }, { limit: 50 })).toEqual([onlyA]);
    });

    it('pages search results and seller lists newest first through ties, exactly once each', async () => {
      const { store, userId, otherUserId } = context();
      const tag = word();
      const tied = tieIds('lst').map((id) => listing(userId, { id, tags: [tag], createdAt: at(7) }));
      const others = [9, 8, 6].map((s) => listing(userId, { tags: [tag], createdAt: at(s) }));
      const foreign = listing(otherUserId, { tags: [tag], createdAt: at(8) });
      for (const r of [...tied, ...others, foreign]) await store.listings.insert(r);
      const all = [...tied, ...others, foreign].sort(byNewestFirst);
      for (const limit of [1, 2, 4]) {
        expect(await readAllRows((p) => store.listings.search({ tags: [tag] }, p), limit)).toEqual(all);
        expect(await readAllRows((p) => store.listings.listBySeller(userId, p), limit)).toEqual(all.filter((l) => l.sellerId === userId));
      }
      expect(await store.listings.listBySeller(otherUserId, { limit: 50 })).toEqual([foreign]);
    });

    it("lists only the seller's listed listings", async () => {
      const { store, userId } = context();
      const listed = listing(userId);
      await store.listings.insert(listed);
      await store.listings.insert(listing(userId, { status: 'unlisted' }));
      expect(await store.listings.listBySeller(userId, { limit: 50 })).toEqual([listed]);
    });

    it("lists every listing of a seller's strategy, whatever its status, and no other seller's", async () => {
      const { store, userId, otherUserId } = context();
      const strategyId = uid('str');
      const older = listing(userId, { strategyId, status: 'unlisted', createdAt: at(1) });
      const newer = listing(userId, { strategyId, createdAt: at(2) });
      await store.listings.insert(older);
      await store.listings.insert(newer);
      await store.listings.insert(listing(userId, { strategyId: uid('str') }));
      await store.listings.insert(listing(otherUserId, { strategyId }));
      expect(await store.listings.listByStrategy(userId, strategyId)).toEqual([newer, older]);
      expect(await store.listings.listByStrategy(userId, uid('str'))).toEqual([]);
    });

    it('adds ratings and purchases atomically under concurrent calls', async () => {
      const { store, userId } = context();
      const record = listing(userId);
      await store.listings.insert(record);
      await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => store.listings.addRating(record.id, (i % 5) + 1, 1)),
        ...Array.from({ length: 10 }, () => store.transaction((tx) => tx.listings.incrementPurchaseCount(record.id))),
      ]);
      const after = await store.listings.findById(record.id);
      expect(after).toMatchObject({ ratingSum: 60, reviewCount: 20, purchaseCount: 10 });
      expect(await store.listings.addRating(record.id, -2, 0)).toBe(true);
      expect((await store.listings.findById(record.id))?.ratingSum).toBe(58);
      expect(await store.listings.addRating(uid('lst'), 1, 1)).toBe(false);
      expect(await store.listings.incrementPurchaseCount(uid('lst'))).toBe(false);
    });
  });

  describe('purchases', () => {
    it('inserts one purchase per (buyer, listing); a second answers false and keeps the first', async () => {
      const { store, userId, otherUserId } = context();
      const first = purchase(userId);
      expect(await store.purchases.insertIfAbsent(first)).toBe(true);
      expect(await store.purchases.insertIfAbsent(purchase(userId, { listingId: first.listingId, status: 'completed' }))).toBe(false);
      expect(await store.purchases.findById(userId, first.id)).toEqual(first);
      expect(await store.purchases.findByListing(userId, first.listingId)).toEqual(first);
      // Another buyer of the same listing is a purchase of its own.
      expect(await store.purchases.insertIfAbsent(purchase(otherUserId, { listingId: first.listingId }))).toBe(true);
      await expect(store.purchases.insertIfAbsent({ ...first, listingId: uid('lst') })).rejects.toThrow();
    });

    it('answers false inside a transaction without failing it', async () => {
      const { store, userId } = context();
      const first = purchase(userId);
      await store.purchases.insertIfAbsent(first);
      const other = purchase(userId);
      const result = await store.transaction(async (tx) => {
        const duplicate = await tx.purchases.insertIfAbsent(purchase(userId, { listingId: first.listingId }));
        const fresh = await tx.purchases.insertIfAbsent(other);
        return { duplicate, fresh, found: await tx.purchases.findByListing(userId, first.listingId) };
      });
      expect(result).toEqual({ duplicate: false, fresh: true, found: first });
      expect(await store.purchases.findById(userId, other.id)).toEqual(other);
    });

    it('lets exactly one of 10 concurrent inserts of the same (buyer, listing) win', async () => {
      const { store, userId } = context();
      const [outside, inside] = [uid('lst'), uid('lst')];
      const results = await Promise.all(Array.from({ length: 10 }, () => store.purchases.insertIfAbsent(purchase(userId, { listingId: outside }))));
      expect(results.filter(Boolean)).toHaveLength(1);
      const inTx = await Promise.all(
        Array.from({ length: 10 }, () => store.transaction((tx) => tx.purchases.insertIfAbsent(purchase(userId, { listingId: inside })))),
      );
      expect(inTx.filter(Boolean)).toHaveLength(1);
      expect(await store.purchases.list(userId, { limit: 50 })).toHaveLength(2);
    });

    it('scopes reads to the buyer and lists newest first', async () => {
      const { store, userId, otherUserId } = context();
      const mine = [3, 1, 2].map((s) => purchase(userId, { createdAt: at(s) }));
      for (const p of mine) await store.purchases.insertIfAbsent(p);
      const theirs = purchase(otherUserId);
      await store.purchases.insertIfAbsent(theirs);
      expect(await store.purchases.list(userId, { limit: 50 })).toEqual([...mine].sort(byNewestFirst));
      expect(await readAllRows((p) => store.purchases.list(userId, p), 1)).toEqual([...mine].sort(byNewestFirst));
      expect(await store.purchases.findById(userId, theirs.id)).toBeNull();
      expect(await store.purchases.findByListing(userId, theirs.listingId)).toBeNull();
    });

    it("lists the buyer's completed purchases of a strategy", async () => {
      const { store, userId, otherUserId } = context();
      const strategyId = uid('str');
      const completed = purchase(userId, { strategyId, status: 'completed', completedAt: at(1), createdAt: at(1) });
      const completed2 = purchase(userId, { strategyId, status: 'completed', completedAt: at(2), createdAt: at(2) });
      for (const p of [
        completed,
        completed2,
        purchase(userId, { strategyId, status: 'pending' }),
        purchase(userId, { strategyId, status: 'failed' }),
        purchase(otherUserId, { strategyId, status: 'completed' }),
        purchase(userId, { status: 'completed' }),
      ]) {
        await store.purchases.insertIfAbsent(p);
      }
      expect(await store.purchases.listCompletedForStrategy(userId, strategyId)).toEqual([completed2, completed]);
      expect(await store.purchases.listCompletedForStrategy(userId, uid('str'))).toEqual([]);
    });

    it("lists a listing's completed purchases from every buyer, newest first, paged, and no other listing's", async () => {
      const { store, userId, otherUserId } = context();
      const listingId = uid('lst');
      const buyers = [userId, otherUserId, uid('usr'), uid('usr')];
      const completed = [3, 1, 2].map((s, i) => purchase(buyers[i]!, { listingId, status: 'completed', completedAt: at(s), createdAt: at(s) }));
      for (const p of [
        ...completed,
        purchase(buyers[3]!, { listingId, status: 'pending' }),
        purchase(userId, { status: 'completed', completedAt: at(4), createdAt: at(4) }),
      ]) {
        await store.purchases.insertIfAbsent(p);
      }
      const newest = [...completed].sort(byNewestFirst);
      expect(await store.purchases.listCompletedByListing(listingId, { limit: 50 })).toEqual(newest);
      expect(await readAllRows((p) => store.purchases.listCompletedByListing(listingId, p), 2)).toEqual(newest);
      expect(await store.purchases.listCompletedByListing(uid('lst'), { limit: 50 })).toEqual([]);
    });

    it("counts the pending purchases of a seller's strategy, from every buyer and listing", async () => {
      const { store, userId, otherUserId } = context();
      const [sellerId, strategyId] = [uid('usr'), uid('str')];
      for (const p of [
        purchase(userId, { sellerId, strategyId }),
        purchase(otherUserId, { sellerId, strategyId }),
        purchase(userId, { sellerId, strategyId, status: 'completed', completedAt: at(1) }),
        purchase(otherUserId, { sellerId, strategyId, status: 'failed' }),
        purchase(userId, { sellerId }),
        purchase(userId, { strategyId }),
      ]) {
        await store.purchases.insertIfAbsent(p);
      }
      expect(await store.purchases.countPendingForStrategy(sellerId, strategyId)).toBe(2);
      expect(await store.purchases.countPendingForStrategy(uid('usr'), strategyId)).toBe(0);
    });

    it('transitions by compare-and-set: of two concurrent completions exactly one wins', async () => {
      const { store, userId } = context();
      const p = purchase(userId);
      await store.purchases.insertIfAbsent(p);
      const patch = { status: 'completed' as const, completedAt: at(9), updatedAt: at(9) };
      const results = await Promise.all([store.purchases.transition(p.id, ['pending'], patch), store.purchases.transition(p.id, ['pending'], patch)]);
      expect(results.filter((r) => r !== null)).toEqual([{ ...p, ...patch }]);
      expect(await store.purchases.findById(userId, p.id)).toEqual({ ...p, ...patch });
      expect(await store.purchases.transition(p.id, ['pending', 'failed'], { status: 'failed' })).toBeNull();
      expect(await store.purchases.transition(uid('pur'), ['pending'], { status: 'failed' })).toBeNull();
      expect(await store.purchases.transition(p.id, [], { status: 'failed' })).toBeNull();
    });

    it("deletes only the buyer's purchase in one of the given statuses", async () => {
      const { store, userId, otherUserId } = context();
      const failed = purchase(userId, { status: 'failed' });
      await store.purchases.insertIfAbsent(failed);
      expect(await store.purchases.deleteIf(otherUserId, failed.id, ['failed'])).toBe(false);
      expect(await store.purchases.deleteIf(userId, failed.id, ['pending'])).toBe(false);
      expect(await store.purchases.deleteIf(userId, failed.id, ['failed'])).toBe(true);
      expect(await store.purchases.findById(userId, failed.id)).toBeNull();
      // The (buyer, listing) pair is free again.
      expect(await store.purchases.insertIfAbsent(purchase(userId, { listingId: failed.listingId }))).toBe(true);
    });
  });

  describe('reviews', () => {
    it('stores text exactly; one review per (listing, reviewer)', async () => {
      const { store, userId, otherUserId } = context();
      const listingId = uid('lst');
      const text = `<script>alert("x")</script> & 'quotes' \\ ✓ 🚀\n${'z'.repeat(4900)}`;
      const mine = review(userId, listingId, { text, rating: 5 });
      expect(await store.reviews.insertIfAbsent(mine)).toBe(true);
      expect(await store.reviews.insertIfAbsent(review(userId, listingId, { rating: 1 }))).toBe(false);
      expect(await store.transaction((tx) => tx.reviews.insertIfAbsent(review(userId, listingId)))).toBe(false);
      expect(await store.reviews.findByReviewer(userId, mine.id)).toEqual(mine);
      expect(await store.reviews.findByReviewer(otherUserId, mine.id)).toBeNull();
      expect(await store.reviews.insertIfAbsent(review(otherUserId, listingId))).toBe(true);
      await expect(store.reviews.insertIfAbsent({ ...mine, listingId: uid('lst') })).rejects.toThrow();
    });

    it('lets exactly one of 8 concurrent reviews by one reviewer win', async () => {
      const { store, userId } = context();
      const listingId = uid('lst');
      const results = await Promise.all(Array.from({ length: 8 }, () => store.reviews.insertIfAbsent(review(userId, listingId))));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("finds the reviewer's own review of a listing, never another reviewer's", async () => {
      const { store, userId, otherUserId } = context();
      const listingId = uid('lst');
      const theirs = review(otherUserId, listingId, { rating: 1, text: 'theirs' });
      await store.reviews.insertIfAbsent(theirs);
      expect(await store.reviews.findByListing(userId, listingId)).toBeNull();
      const mine = review(userId, listingId, { rating: 5, text: 'mine' });
      const elsewhere = review(userId, uid('lst'), { text: 'another listing' });
      await store.reviews.insertIfAbsent(mine);
      await store.reviews.insertIfAbsent(elsewhere);
      expect(await store.reviews.findByListing(userId, listingId)).toEqual(mine);
      expect(await store.reviews.findByListing(otherUserId, listingId)).toEqual(theirs);
      expect(await store.reviews.findByListing(otherUserId, elsewhere.listingId)).toBeNull();
      expect(await store.reviews.findByListing(userId, uid('lst'))).toBeNull();
      await store.reviews.update(userId, mine.id, { text: 'edited', updatedAt: at(3) });
      expect(await store.transaction((tx) => tx.reviews.findByListing(userId, listingId))).toEqual({ ...mine, text: 'edited', updatedAt: at(3) });
    });

    it("updates only the reviewer's own review", async () => {
      const { store, userId, otherUserId } = context();
      const mine = review(userId, uid('lst'));
      await store.reviews.insertIfAbsent(mine);
      expect(await store.reviews.update(otherUserId, mine.id, { rating: 1, text: 'hijacked' })).toBe(false);
      expect(await store.reviews.findByReviewer(userId, mine.id)).toEqual(mine);
      expect(await store.reviews.update(userId, mine.id, { rating: 2, text: 'changed', updatedAt: at(8) })).toBe(true);
      expect(await store.reviews.findByReviewer(userId, mine.id)).toEqual({ ...mine, rating: 2, text: 'changed', updatedAt: at(8) });
      expect(await store.transaction((tx) => tx.reviews.findByReviewer(userId, mine.id, { forUpdate: true }))).toMatchObject({ rating: 2 });
      expect(await store.reviews.update(userId, uid('rev'), { rating: 3 })).toBe(false);
      expect(await store.reviews.update(userId, mine.id, {})).toBe(true);
    });

    it('lists the reviews of a listing newest first', async () => {
      const { store } = context();
      const listingId = uid('lst');
      const rows = [2, 5, 1].map((s) => review(uid('usr'), listingId, { createdAt: at(s) }));
      for (const r of rows) await store.reviews.insertIfAbsent(r);
      await store.reviews.insertIfAbsent(review(uid('usr'), uid('lst')));
      expect(await store.reviews.listByListing(listingId, { limit: 50 })).toEqual([...rows].sort(byNewestFirst));
      expect(await readAllRows((p) => store.reviews.listByListing(listingId, p), 2)).toEqual([...rows].sort(byNewestFirst));
    });
  });

  describe('billing customers', () => {
    it('remembers one customer per (user, provider) and answers the first', async () => {
      const { store, userId, otherUserId } = context();
      const first = { userId, provider: 'stripe', customerId: `cus_${randomBytes(8).toString('hex')}`, createdAt: at(0) };
      expect(await store.billingCustomers.insertIfAbsent(first)).toEqual(first);
      expect(await store.billingCustomers.insertIfAbsent({ ...first, customerId: 'cus_second', createdAt: at(1) })).toEqual(first);
      expect(await store.billingCustomers.findByUser(userId, 'stripe')).toEqual(first);
      expect(await store.billingCustomers.findByUser(userId, 'local')).toBeNull();
      expect(await store.billingCustomers.findByCustomerId('stripe', first.customerId)).toEqual(first);
      expect(await store.billingCustomers.findByCustomerId('local', first.customerId)).toBeNull();
      const local = { userId, provider: 'local', customerId: first.customerId, createdAt: at(2) };
      expect(await store.billingCustomers.insertIfAbsent(local)).toEqual(local);
      await expect(
        store.billingCustomers.insertIfAbsent({ userId: otherUserId, provider: 'stripe', customerId: first.customerId, createdAt: at(3) }),
      ).rejects.toThrow();
      expect(await store.billingCustomers.findByUser(otherUserId, 'stripe')).toBeNull();
    });

    it('agrees on one customer under concurrent first calls', async () => {
      const { store, userId } = context();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          store.billingCustomers.insertIfAbsent({ userId, provider: 'stripe', customerId: `cus_${i}_${randomBytes(6).toString('hex')}`, createdAt: at(i) }),
        ),
      );
      expect(new Set(results.map((r) => r.customerId)).size).toBe(1);
    });
  });

  describe('subscriptions', () => {
    it('is null for a user without one, and stores one as given', async () => {
      const { store, userId } = context();
      expect(await store.subscriptions.findByUser(userId)).toBeNull();
      const s = subscription(userId, { cancelAtPeriodEnd: true, customerId: null, currentPeriodStart: null, currentPeriodEnd: null });
      expect(await store.subscriptions.putIfNotOlder(s)).toBe(true);
      expect(await store.subscriptions.findByUser(userId)).toEqual(s);
    });

    it('never replaces a state from a newer event with one from an older event', async () => {
      const { store, userId, otherUserId } = context();
      const newer = subscription(userId, { status: 'active', eventCreatedAt: at(20) });
      expect(await store.subscriptions.putIfNotOlder(newer)).toBe(true);
      expect(await store.subscriptions.putIfNotOlder({ ...newer, status: 'incomplete', eventCreatedAt: at(19) })).toBe(false);
      expect(await store.transaction((tx) => tx.subscriptions.putIfNotOlder({ ...newer, status: 'unpaid', eventCreatedAt: at(5) }))).toBe(false);
      expect(await store.subscriptions.findByUser(userId)).toEqual(newer);
      const same = { ...newer, cancelAtPeriodEnd: true, updatedAt: at(21) };
      expect(await store.subscriptions.putIfNotOlder(same)).toBe(true);
      const later = { ...newer, tier: 'team' as const, status: 'past_due' as const, eventCreatedAt: at(30) };
      expect(await store.subscriptions.putIfNotOlder(later)).toBe(true);
      expect(await store.subscriptions.findByUser(userId)).toEqual(later);
      expect(await store.subscriptions.findByUser(otherUserId)).toBeNull();
    });
  });

  describe('processed events', () => {
    it('records an event id once per provider, and not when the transaction rolls back', async () => {
      const { store } = context();
      const id = `evt_${randomBytes(8).toString('hex')}`;
      expect(await store.processedEvents.markProcessed('stripe', id, 'x', at(0))).toBe(true);
      expect(await store.processedEvents.markProcessed('stripe', id, 'x', at(1))).toBe(false);
      expect(await store.processedEvents.markProcessed('local', id, 'x', at(1))).toBe(true);
      const rolledBack = `evt_${randomBytes(8).toString('hex')}`;
      await expect(
        store.transaction(async (tx) => {
          expect(await tx.processedEvents.markProcessed('stripe', rolledBack, 'x', at(0))).toBe(true);
          throw new Error('apply failed');
        }),
      ).rejects.toThrow('apply failed');
      expect(await store.processedEvents.markProcessed('stripe', rolledBack, 'x', at(2))).toBe(true);
    });

    it('lets exactly one of 10 concurrent deliveries of an event through', async () => {
      const { store } = context();
      const id = `evt_${randomBytes(8).toString('hex')}`;
      const results = await Promise.all(
        Array.from({ length: 10 }, () => store.transaction((tx) => tx.processedEvents.markProcessed('stripe', id, 'x', at(0)))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('usage counters', () => {
    it('reserves exactly 5 of 20 concurrent backtests against an allowance of 5', async () => {
      const { store, userId } = context();
      const p = period(0);
      const limits = { backtests: 5, computeMs: 1e9 };
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.usageCounters.reserveBacktest(userId, p, limits, at(i))));
      expect(results.filter((r) => r !== null)).toHaveLength(5);
      expect((await store.usageCounters.find(userId, p.start))?.backtests).toBe(5);
      expect(
        results
          .filter((r) => r !== null)
          .map((r) => r!.backtests)
          .sort(),
      ).toEqual([1, 2, 3, 4, 5]);
      // The same inside transactions.
      const q = period(6);
      const inTx = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.transaction((tx) => tx.usageCounters.reserveBacktest(userId, q, limits, at(i)))),
      );
      expect(inTx.filter((r) => r !== null)).toHaveLength(5);
      expect((await store.usageCounters.find(userId, q.start))?.backtests).toBe(5);
    });

    it('refuses when no compute is left, and with an allowance of zero writes nothing', async () => {
      const { store, userId } = context();
      const p = period(1);
      expect(await store.usageCounters.reserveBacktest(userId, p, { backtests: 0, computeMs: 1000 }, at(0))).toBeNull();
      expect(await store.usageCounters.find(userId, p.start)).toBeNull();
      await store.usageCounters.addComputeMs(userId, p, 1000, at(1));
      expect(await store.usageCounters.reserveBacktest(userId, p, { backtests: 5, computeMs: 1000 }, at(2))).toBeNull();
      expect(await store.usageCounters.reserveBacktest(userId, p, { backtests: 5, computeMs: 1001 }, at(3))).toEqual({
        userId,
        periodStart: p.start,
        periodEnd: p.end,
        backtests: 1,
        computeMs: 1000,
        updatedAt: at(3),
      });
    });

    it('adds compute atomically, keeps periods and users apart, and releases never below zero', async () => {
      const { store, userId, otherUserId } = context();
      const [p1, p2] = [period(2), period(3)];
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.usageCounters.addComputeMs(userId, p1, 250.5, at(i))));
      expect((await store.usageCounters.find(userId, p1.start))?.computeMs).toBe(5010);
      expect(await store.usageCounters.find(userId, p2.start)).toBeNull();
      expect(await store.usageCounters.find(otherUserId, p1.start)).toBeNull();
      expect(await store.usageCounters.releaseBacktest(userId, p2.start, at(0))).toBe(false);
      await store.usageCounters.reserveBacktest(userId, p1, { backtests: 3, computeMs: 1e9 }, at(30));
      expect(await store.usageCounters.releaseBacktest(userId, p1.start, at(31))).toBe(true);
      expect(await store.usageCounters.releaseBacktest(userId, p1.start, at(32))).toBe(true);
      expect(await store.usageCounters.find(userId, p1.start)).toMatchObject({ backtests: 0, computeMs: 5010, updatedAt: at(32) });
    });
  });

  describe('local invoices', () => {
    it("lists only the user's invoices, newest first; a duplicate id throws", async () => {
      const { store, userId, otherUserId } = context();
      const mine = [1, 3, 2].map((s) => invoice(userId, { createdAt: at(s) }));
      for (const i of mine) await store.localInvoices.insert(i);
      await store.localInvoices.insert(invoice(otherUserId));
      expect(await store.localInvoices.list(userId, { limit: 50 })).toEqual([...mine].sort(byNewestFirst));
      expect(await readAllRows((p) => store.localInvoices.list(userId, p), 2)).toEqual([...mine].sort(byNewestFirst));
      await expect(store.localInvoices.insert(mine[0]!)).rejects.toThrow();
    });
  });
}
