import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient, StratboxClientError } from '@stratbox/client';
import { backtestProgressChannel } from '@stratbox/core/contract';
import { sleep } from './harness/deferred.js';
import { openAuthedSocket } from './harness/ws-raw-client.js';
import { startWsTestService, type WsTestService } from './harness/ws-service.js';
import { expectError } from './harness/client-errors.js';

/*
 * The marketplace over real HTTP (and WebSocket) with the local billing provider: publish,
 * search by text and by two tags, buy, review, average rating; the run-only licence (the buyer
 * backtests the bought strategy and no endpoint it can reach returns the source); BOLA.
 */

const MARKER = `SECRET_EDGE_${randomBytes(6).toString('hex')}`;
const SOURCE = `// ${MARKER}: the proprietary part
export const meta = { timeframe: "1h" };
const ${MARKER.toLowerCase()} = "${MARKER}";
export function onCandle(ctx, c) {
  if (!ctx.position(c.symbol) && c.close > 0) ctx.buy(c.symbol, { quantity: 0.001 });
}
`;

type User = { userId: string; apiKey: string; client: StratboxClient };

describe('marketplace over HTTP', () => {
  let service: WsTestService;
  let alice: User;
  let bob: User;
  let carol: User;
  let strategyId: string;
  const tagA = `a${randomBytes(4).toString('hex')}`;
  const tagB = `b${randomBytes(4).toString('hex')}`;
  const word = `Zebra${randomBytes(4).toString('hex')}`;
  let trend: { id: string };
  let paid: { id: string };
  let other: { id: string };

  /** Raw `fetch` as a user, for the exact bytes an endpoint answers. */
  const raw = (user: User, path: string, init: RequestInit = {}) =>
    fetch(service.baseUrl + path, { ...init, headers: { authorization: `Bearer ${user.apiKey}`, 'content-type': 'application/json', ...init.headers } });

  beforeAll(async () => {
    service = await startWsTestService();
    alice = await service.newUser('alice');
    bob = await service.newUser('bob');
    carol = await service.newUser('carol');
    strategyId = (await alice.client.strategies.create({ body: { name: 'Edge', description: 'private', source: SOURCE, marketType: 'LINEAR' } })).id;
  });
  afterAll(() => service.close());

  it("publishes listings from your own strategy, pinning its version; not from someone else's", async () => {
    const res = await raw(alice, '/api/marketplace', {
      method: 'POST',
      body: JSON.stringify({ strategyId, name: `Trend ${word}`, description: 'Rides trends', price: 0, tags: [tagA.toUpperCase(), tagB] }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      strategyId,
      strategyVersion: 1,
      sellerId: alice.userId,
      name: `Trend ${word}`,
      price: 0,
      tags: [tagA, tagB],
      averageRating: null,
      reviewCount: 0,
      purchaseCount: 0,
      // the platform's verification starts with the listing: pending, no forward evidence yet
      record: { status: 'pending', badge: 'insufficient', forwardDays: 0, forwardTrades: 0, searchEffort: 0 },
    });
    expect(body.id).toMatch(/^lst_[A-Za-z0-9_-]{16,}$/);
    expect(JSON.stringify(body)).not.toContain(MARKER);
    trend = body as { id: string };
    await sleep(5); // distinct createdAt, so "newest first" is the creation order
    paid = await alice.client.marketplace.create({
      body: { strategyId, name: 'Premium', description: `about ${word.toLowerCase()} too`, price: 4_900, tags: [tagA] },
    });
    await sleep(5);
    other = await alice.client.marketplace.create({ body: { strategyId, name: 'Unrelated', description: 'nothing here', price: 0, tags: [tagB] } });
    await expectError(bob.client.marketplace.create({ body: { strategyId, name: 'Stolen', price: 0 } }), 404, 'NOT_FOUND');
  });

  it('searches by text (case-insensitive, name or description) and by two tags (all required)', async () => {
    const byText = await bob.client.marketplace.search({ query: { search: word.toUpperCase() } });
    expect(byText.listings.map((l) => l.id)).toEqual([paid.id, trend.id]);
    const byTags = await bob.client.marketplace.search({ query: { tags: `${tagA},${tagB}` } });
    expect(byTags.listings.map((l) => l.id)).toEqual([trend.id]);
    const both = await bob.client.marketplace.search({ query: { search: 'premium', tags: tagA } });
    expect(both.listings.map((l) => l.id)).toEqual([paid.id]);
    const page = await bob.client.marketplace.search({ query: { tags: tagA, limit: 1 } });
    expect(page.listings.map((l) => l.id)).toEqual([paid.id]);
    const next = await bob.client.marketplace.search({ query: { tags: tagA, limit: 1, cursor: page.nextCursor! } });
    expect(next.listings.map((l) => l.id)).toEqual([trend.id]);
    expect(next.nextCursor).toBeNull();
    expect((await alice.client.marketplace.myListings()).listings.map((l) => l.id)).toEqual([other.id, paid.id, trend.id]);
    expect((await bob.client.marketplace.myListings()).listings).toEqual([]);
  });

  it('buys: a free listing at once, a paid one through the local provider; own listing 403; twice 409', async () => {
    await expectError(alice.client.marketplace.purchase({ params: { id: trend.id }, body: {} }), 403, 'FORBIDDEN');
    const res = await raw(bob, `/api/marketplace/${trend.id}/purchase`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(201);
    const purchase = (await res.json()) as Record<string, unknown>;
    expect(purchase).toMatchObject({ listingId: trend.id, strategyId, strategyVersion: 1, price: 0, status: 'completed', checkoutUrl: null });
    expect(purchase.id).toMatch(/^pur_/);
    await expectError(bob.client.marketplace.purchase({ params: { id: trend.id }, body: {} }), 409, 'CONFLICT');
    await sleep(5);
    const bought = await bob.client.marketplace.purchase({ params: { id: paid.id }, body: {} });
    expect(bought).toMatchObject({ status: 'completed', price: 4_900 });
    // Concurrent second purchases: exactly one of carol's wins.
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => carol.client.marketplace.purchase({ params: { id: trend.id }, body: {} })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as StratboxClientError).status).toBe(409);
    expect((await bob.client.marketplace.purchases()).purchases.map((p) => p.listingId)).toEqual([paid.id, trend.id]);
    expect((await bob.client.marketplace.get({ params: { id: trend.id } })).purchaseCount).toBe(2);
    const invoices = await bob.client.billing.invoices();
    expect(invoices.invoices).toEqual([expect.objectContaining({ amountPaid: 4_900, status: 'paid', pdfUrl: expect.any(String) })]);
  });

  it('reviews: buyers only, once each, edit your own; the average rating follows', async () => {
    await expectError(alice.client.marketplace.review({ params: { id: trend.id }, body: { rating: 5, text: 'my own' } }), 403, 'FORBIDDEN');
    const outsider = await service.newUser('outsider');
    await expectError(outsider.client.marketplace.review({ params: { id: trend.id }, body: { rating: 1, text: 'never bought' } }), 403, 'FORBIDDEN');
    const text = '<script>alert("x")</script> & ✓ stays as given';
    const res = await raw(bob, `/api/marketplace/${trend.id}/reviews`, { method: 'POST', body: JSON.stringify({ rating: 4, text }) });
    expect(res.status).toBe(201);
    const review = (await res.json()) as { id: string; text: string; reviewerId: string; rating: number; createdAt: string };
    expect(review).toMatchObject({ reviewerId: bob.userId, rating: 4, text });
    await expectError(bob.client.marketplace.review({ params: { id: trend.id }, body: { rating: 5, text: 'again' } }), 409, 'CONFLICT');
    await expectError(bob.client.marketplace.review({ params: { id: trend.id }, body: { rating: 6, text: 'too high' } }), 400, 'VALIDATION_FAILED');
    await expectError(bob.client.marketplace.review({ params: { id: trend.id }, body: { rating: 3, text: 'x'.repeat(5001) } }), 400, 'VALIDATION_FAILED');
    await sleep(5);
    await carol.client.marketplace.review({ params: { id: trend.id }, body: { rating: 1, text: 'meh' } });
    expect(await bob.client.marketplace.get({ params: { id: trend.id } })).toMatchObject({ averageRating: 2.5, reviewCount: 2 });

    const edited = await bob.client.marketplace.updateReview({ params: { id: trend.id, reviewId: review.id }, body: { rating: 5, text: 'even better' } });
    expect(edited).toMatchObject({ id: review.id, rating: 5, text: 'even better', createdAt: review.createdAt });
    expect(await carol.client.marketplace.get({ params: { id: trend.id } })).toMatchObject({ averageRating: 3, reviewCount: 2 });
    const reviews = await outsider.client.marketplace.reviews({ params: { id: trend.id } });
    expect(reviews.reviews.map((r) => [r.reviewerId, r.rating, r.text])).toEqual([
      [carol.userId, 1, 'meh'],
      [bob.userId, 5, 'even better'],
    ]);
  });

  it("mine=true answers only the caller's own review; a second review's 409 names the review to edit", async () => {
    const bobs = (await bob.client.marketplace.reviews({ params: { id: trend.id } })).reviews.find((r) => r.reviewerId === bob.userId)!;
    const res = await raw(bob, `/api/marketplace/${trend.id}/reviews?mine=true`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ reviews: [bobs], nextCursor: null });
    expect(await carol.client.marketplace.reviews({ params: { id: trend.id }, query: { mine: 'true' } })).toEqual({
      reviews: [expect.objectContaining({ reviewerId: carol.userId, text: 'meh' })],
      nextCursor: null,
    });
    // A buyer who has not reviewed, and the seller: an empty list, never someone else's review.
    const dave = await service.newUser('dave');
    await dave.client.marketplace.purchase({ params: { id: trend.id }, body: {} });
    expect(await dave.client.marketplace.reviews({ params: { id: trend.id }, query: { mine: 'true' } })).toEqual({ reviews: [], nextCursor: null });
    expect((await alice.client.marketplace.reviews({ params: { id: trend.id }, query: { mine: 'true' } })).reviews).toEqual([]);
    expect((await bob.client.marketplace.reviews({ params: { id: paid.id }, query: { mine: 'true' } })).reviews).toEqual([]);
    // mine=false is every review.
    expect((await dave.client.marketplace.reviews({ params: { id: trend.id }, query: { mine: 'false' } })).reviews).toHaveLength(2);

    const bad = await raw(bob, `/api/marketplace/${trend.id}/reviews?mine=yes`);
    expect(bad.status).toBe(400);
    const badBody = (await bad.json()) as { error: { code: string; message: string; details: Array<{ path: string; message: string }> } };
    expect(badBody.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.any(String) });
    expect(badBody.error.details).toEqual([expect.objectContaining({ path: expect.stringContaining('mine'), message: expect.any(String) })]);

    const again = await raw(bob, `/api/marketplace/${trend.id}/reviews`, { method: 'POST', body: JSON.stringify({ rating: 1, text: 'again' }) });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: { code: 'CONFLICT', message: `You already reviewed listing ${trend.id}; edit your review instead`, details: { reviewId: bobs.id } },
    });
    const error = await expectError(carol.client.marketplace.review({ params: { id: trend.id }, body: { rating: 2, text: 'again' } }), 409, 'CONFLICT');
    const carols = (await carol.client.marketplace.reviews({ params: { id: trend.id }, query: { mine: 'true' } })).reviews[0]!;
    expect(error.details).toEqual({ reviewId: carols.id });
  });

  describe('BOLA', () => {
    it("user B cannot edit or unlist A's listing: 404 as if it did not exist, and it is unchanged", async () => {
      const before = await alice.client.marketplace.get({ params: { id: other.id } });
      for (const attempt of [
        () => bob.client.marketplace.update({ params: { id: other.id }, body: { name: 'Hijacked', price: 1 } }),
        () => bob.client.marketplace.unlist({ params: { id: other.id } }),
      ]) {
        const error = await expectError(attempt(), 404, 'NOT_FOUND');
        expect(error.message).toBe(`Listing ${other.id} not found`);
      }
      expect(await alice.client.marketplace.get({ params: { id: other.id } })).toEqual(before);
    });

    it("user B cannot edit A's review", async () => {
      const mine = (await carol.client.marketplace.reviews({ params: { id: trend.id } })).reviews.find((r) => r.reviewerId === carol.userId)!;
      const error = await expectError(
        bob.client.marketplace.updateReview({ params: { id: trend.id, reviewId: mine.id }, body: { rating: 5, text: 'hijacked' } }),
        404,
        'NOT_FOUND',
      );
      expect(error.message).toBe(`Review ${mine.id} not found`);
      const after = (await carol.client.marketplace.reviews({ params: { id: trend.id } })).reviews.find((r) => r.id === mine.id);
      expect(after).toEqual(mine);
    });

    it("user B sees none of A's purchases, invoices or usage", async () => {
      const outsider = await service.newUser('nosy');
      expect((await outsider.client.marketplace.purchases()).purchases).toEqual([]);
      expect((await outsider.client.billing.invoices()).invoices).toEqual([]);
      const usage = await outsider.client.billing.usage();
      expect(usage.backtests.used).toBe(0);
      expect(usage.compute.used).toBe(0);
      expect((await bob.client.marketplace.purchases()).purchases).toHaveLength(2);
    });

    it('the owner unlists: gone for everyone, buyers keep their purchase', async () => {
      await alice.client.marketplace.unlist({ params: { id: other.id } });
      await expectError(bob.client.marketplace.get({ params: { id: other.id } }), 404, 'NOT_FOUND');
      await expectError(alice.client.marketplace.unlist({ params: { id: other.id } }), 404, 'NOT_FOUND');
      expect((await bob.client.marketplace.search({ query: { tags: tagB } })).listings.map((l) => l.id)).toEqual([trend.id]);
    });
  });

  it('run-only licence: the buyer backtests the bought strategy, and nothing it can reach returns the source', async () => {
    const texts: string[] = [];
    const capture = async (res: Response) => {
      const text = await res.text();
      texts.push(text);
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
    };

    // The strategy's own endpoints stay the seller's: 404 for the buyer.
    for (const path of [`/api/strategies/${strategyId}`, `/api/strategies/${strategyId}?version=1`]) {
      const { status, body } = await capture(await raw(bob, path));
      expect(status).toBe(404);
      expect(body).toEqual({ error: { code: 'NOT_FOUND', message: `Strategy ${strategyId} not found` } });
    }
    expect((await capture(await raw(bob, '/api/strategies'))).body).toEqual({ strategies: [], nextCursor: null });

    // WebSocket first, so every progress event of the run is seen.
    const socket = await openAuthedSocket(service.wsUrl, bob.apiKey);

    const created = await capture(
      await raw(bob, '/api/backtests', {
        method: 'POST',
        body: JSON.stringify({ strategyId, symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-01-03', marketType: 'LINEAR' }),
      }),
    );
    expect(created.status).toBe(202);
    const backtestId = created.body!.id as string;
    expect(created.body).toMatchObject({ strategyId, strategyVersion: 1 });
    socket.send({ type: 'subscribe', channel: backtestProgressChannel(backtestId), id: 'run' });

    let final: Record<string, unknown> | null = null;
    for (let i = 0; i < 300 && !final; i++) {
      const { body } = await capture(await raw(bob, `/api/backtests/${backtestId}`));
      if (['completed', 'failed', 'cancelled'].includes(body!.status as string)) final = body;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(final).toMatchObject({ id: backtestId, status: 'completed', strategyId });
    expect(final!.metrics).not.toBeNull();
    await socket.waitFor((m) => m.type === 'event' && (m.data as { status?: string }).status === 'completed', 5000).catch(() => undefined);
    socket.close();

    // Everything else the buyer can reach.
    for (const path of [
      '/api/backtests',
      `/api/backtests?strategyId=${strategyId}`,
      `/api/marketplace/${trend.id}`,
      `/api/marketplace/${trend.id}/reviews`,
      '/api/marketplace',
      `/api/marketplace?search=${encodeURIComponent(word)}`,
      '/api/marketplace/purchases',
      '/api/marketplace/my-listings',
      '/api/billing/subscription',
      '/api/billing/usage',
      '/api/billing/invoices',
      `/api/market-data/candles?symbol=${encodeURIComponent('BTC/USDT:USDT')}&timeframe=1h&startDate=2025-01-01&endDate=2025-01-02`,
    ]) {
      await capture(await raw(bob, path));
    }
    // The listing's verified record is the buyer's to read, without the source.
    const recorded = await capture(await raw(bob, `/api/marketplace/${trend.id}/record`));
    expect(recorded.status).toBe(200);
    expect(recorded.body).toMatchObject({ listingId: trend.id, listed: true, current: { listingId: trend.id, identity: { strategyVersion: 1 } } });
    // Errors the buyer can provoke on the strategy.
    await capture(await raw(bob, `/api/strategies/${strategyId}`, { method: 'PUT', body: JSON.stringify({ name: 'mine now' }) }));
    await capture(await raw(bob, `/api/strategies/${strategyId}`, { method: 'DELETE' }));
    await capture(
      await raw(bob, '/api/backtests', {
        method: 'POST',
        body: JSON.stringify({ strategyId, symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-01-02', params: { nope: '1' } }),
      }),
    );
    await capture(await raw(bob, `/api/backtests/${backtestId}/cancel`, { method: 'POST', body: '{}' }));

    for (const text of [...texts, ...socket.received.map((m) => JSON.stringify(m))]) {
      expect(text).not.toContain(MARKER);
      expect(text).not.toContain(MARKER.toLowerCase());
      expect(text).not.toContain('onCandle(ctx, c)');
    }
    // The usage counters of the buyer moved; the seller's did not.
    expect((await bob.client.billing.usage()).backtests.used).toBeGreaterThanOrEqual(1);
    expect((await alice.client.billing.usage()).backtests.used).toBe(0);
    // Without a purchase the strategy does not exist for that user.
    const nosy = await service.newUser('nosy2');
    await expectError(
      nosy.client.backtests.create({ body: { strategyId, symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-01-02' } }),
      404,
      'NOT_FOUND',
    );
  });

  it('a strategy on sale, or ever sold, cannot be deleted (409): buyers keep running it', async () => {
    const refused = await expectError(alice.client.strategies.delete({ params: { id: strategyId } }), 409, 'CONFLICT');
    expect(refused.message).toMatch(/was sold on the marketplace .* buyers keep running it/);
    expect(await alice.client.strategies.get({ params: { id: strategyId } })).toMatchObject({ id: strategyId });
    const run = await bob.client.backtests.create({
      body: { strategyId: trend.id, symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-01-02' },
    });
    expect(run.status).toBe('queued');

    // Listed but never sold: unlist first, then it goes.
    const spare = await alice.client.strategies.create({ body: { name: 'Spare', description: '', source: SOURCE, marketType: 'LINEAR' } });
    const listing = await alice.client.marketplace.create({ body: { strategyId: spare.id, name: `Spare ${word}`, price: 0 } });
    const listed = await expectError(alice.client.strategies.delete({ params: { id: spare.id } }), 409, 'CONFLICT');
    expect(listed.message).toContain(`is listed on the marketplace (listing ${listing.id}); unlist it first`);
    await alice.client.marketplace.unlist({ params: { id: listing.id } });
    await alice.client.strategies.delete({ params: { id: spare.id } });
    await expectError(alice.client.strategies.get({ params: { id: spare.id } }), 404, 'NOT_FOUND');
  });
});
