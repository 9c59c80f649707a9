import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listing } from '@stratbox/core/contract';
import type { z } from 'zod';
import { waitFor } from './harness/deferred.js';
import { smaCrossStrategy } from './harness/optimizations.js';
import { startVerificationServer, waitRecordSettled, type ServiceUser, type VerificationServer } from './harness/verification-server.js';
import { waitFinished } from './harness/wait-backtest.js';

/*
 * Verified listings over real HTTP, against the example server as its own process with its
 * default verification settings and a service clock 60 times faster than real time (a `1m`
 * candle closes every second): a new listing's record within 60 s, whose platform backtest
 * equals a backtest the seller runs with the record's settings to 1e-9; a forward record that
 * gains candles; a new version's record with the old one in the lineage; hidden source on every
 * route a buyer or a stranger reaches; search by evidence; a delisted listing's record kept.
 */

const MARKER = `VERIFIED_SECRET_${randomBytes(6).toString('hex')}`;
/** The SMA crossover (1h, declared defaults fast 10 / slow 30), carrying the marker in a comment and a string. */
const sourceWithMarker = (version: number) => `// ${MARKER} v${version}: the proprietary part\nconst secret = "${MARKER}";\n${smaCrossStrategy()}`;
/** A `1m` strategy for the forward record: it trades now and then, on any candle. */
const MINUTE_SOURCE = `// ${MARKER}
export const meta = { timeframe: '1m' };
export function onCandle(ctx, c) {
  if (!ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.2 });
  else ctx.close(c.symbol);
}
`;

type ListingView = z.infer<typeof Listing>;

describe('verified listings over HTTP', () => {
  let service: VerificationServer;
  let seller: ServiceUser;
  let buyer: ServiceUser;
  let stranger: ServiceUser;
  let strategyId: string;
  let hourly: ListingView;
  let minute: ListingView;
  let firstRecordId: string;
  const word = `Verified${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    service = await startVerificationServer(60);
    [seller, buyer, stranger] = await Promise.all([service.newUser('seller'), service.newUser('buyer'), service.newUser('stranger')]);
    strategyId = (await seller.client.strategies.create({ body: { name: 'Crossover', source: sourceWithMarker(1), marketType: 'LINEAR' } })).id;
  }, 90_000);
  afterAll(() => service?.close());

  it("a new listing has a ready record within 60 s whose platform backtest equals the seller's own backtest with its settings (1e-9)", {
    timeout: 300_000,
  }, async () => {
    const createdAt = Date.now();
    hourly = await seller.client.marketplace.create({ body: { strategyId, name: `${word} hourly`, description: 'Crossover', price: 0 } });
    expect(hourly.record).toMatchObject({ status: 'pending', badge: 'insufficient' });
    const detail = await waitRecordSettled(seller.client, hourly.id, 60_000);
    expect(Date.now() - createdAt).toBeLessThan(60_000);
    const record = detail.current!;
    expect(record.status, JSON.stringify(record.error)).toBe('ready');
    firstRecordId = record.id;
    expect(detail).toMatchObject({ listingId: hourly.id, listed: true, lineage: [] });
    expect(record.identity).toMatchObject({
      strategyVersion: 1,
      params: { fast: '10', slow: '30' },
      symbols: ['BTC/USDT:USDT'],
      timeframe: '1h',
      marketType: 'LINEAR',
      fees: { maker: 0.0002, taker: 0.0005 },
      slippage: 0.0005,
      funding: true,
      initialCapital: 10_000,
    });
    const version = (await seller.client.strategies.get({ params: { id: strategyId } })).versions.find((v) => v.version === 1)!;
    expect(record.identity.sourceSha256).toBe(version.sourceSha256);
    expect(record.searchEffort).toEqual({ backtests: 0, trials: 0, total: 0 });

    // The seller's own backtest with the record's settings, over the record's window.
    const { identity } = record;
    const segment = record.backtest!;
    const created = await seller.client.backtests.create({
      body: {
        strategyId,
        symbols: identity.symbols,
        startDate: segment.start.slice(0, 10),
        endDate: segment.end.slice(0, 10),
        timeframe: identity.timeframe,
        marketType: identity.marketType,
        fees: identity.fees,
        slippage: identity.slippage,
        initialCapital: identity.initialCapital,
        params: identity.params,
        funding: identity.funding,
      },
    });
    const own = await waitFinished(seller.client, created.id, 180_000);
    expect(own.status, JSON.stringify(own.error)).toBe('completed');
    const mine = own.metrics!;
    const verified = segment.metrics;
    expect(mine.tradeCount).toBeGreaterThan(10);
    expect(verified.tradeCount).toBe(mine.tradeCount);
    const compared = ['totalReturn', 'cagr', 'maxDrawdown', 'sharpe', 'exposure', 'feesPaid', 'fundingPaid'] as const;
    const figures = mine as unknown as Record<string, unknown>;
    const both = compared.filter((key) => typeof figures[key] === 'number');
    expect(both).toEqual(expect.arrayContaining(['totalReturn', 'maxDrawdown', 'sharpe', 'feesPaid', 'fundingPaid']));
    for (const key of both) expect(verified[key], key).toBeCloseTo(figures[key] as number, 9);
    expect(verified.feesPaid).toBeGreaterThan(0);

    // The forward record exists from the listing on, with too little evidence for a badge.
    expect(Date.parse(record.forward.start)).toBe(Date.parse(hourly.createdAt));
    expect(record.badge).toBe('insufficient');
    const listing = await stranger.client.marketplace.get({ params: { id: hourly.id } });
    expect(listing.record).toMatchObject({ status: 'ready', badge: 'insufficient', backtestReturn: verified.totalReturn, searchEffort: 0 });
  });

  it("a 1m listing's forward record gains candles as the (fast) clock runs", { timeout: 420_000 }, async () => {
    const minuteStrategy = await seller.client.strategies.create({ body: { name: 'Minute', source: MINUTE_SOURCE, marketType: 'LINEAR' } });
    minute = await seller.client.marketplace.create({ body: { strategyId: minuteStrategy.id, name: `${word} minute`, price: 0 } });
    const settled = await waitRecordSettled(seller.client, minute.id, 300_000);
    expect(settled.current!.status, JSON.stringify(settled.current!.error)).toBe('ready');
    expect(settled.current!.identity.timeframe).toBe('1m');
    const forward = await waitFor(
      'the 1m forward record to gain candles',
      async () => {
        const detail = await stranger.client.marketplace.record({ params: { id: minute.id } });
        return detail.current!.forward.candles > 0 ? detail.current!.forward : null;
      },
      300_000,
      500,
    );
    expect(forward.lastCandleAt).not.toBeNull();
    expect(Date.parse(forward.lastCandleAt!)).toBeGreaterThanOrEqual(Date.parse(minute.createdAt));
    expect(forward.equity.length).toBeGreaterThan(0);
    expect((await stranger.client.marketplace.record({ params: { id: minute.id } })).current!.badge).toBe('insufficient');
  });

  it('publishing a new version starts a new record and keeps the old one in the lineage', { timeout: 180_000 }, async () => {
    const before = (await seller.client.marketplace.record({ params: { id: hourly.id } })).current!;
    const updated = await seller.client.strategies.update({ params: { id: strategyId }, body: { source: sourceWithMarker(2) } });
    expect(updated.version).toBe(2);
    const published = await seller.client.marketplace.update({ params: { id: hourly.id }, body: { strategyVersion: 2 } });
    expect(published.strategyVersion).toBe(2);
    const detail = await waitRecordSettled(buyer.client, hourly.id, 120_000);
    expect(detail.current!.id).not.toBe(firstRecordId);
    expect(detail.current!.status).toBe('ready');
    expect(detail.current!.identity.strategyVersion).toBe(2);
    expect(detail.current!.supersededAt).toBeNull();
    // the seller's backtest of version 1 counts as search effort of the new version
    expect(detail.current!.searchEffort.backtests).toBe(1);
    expect(detail.lineage.map((r) => r.id)).toEqual([firstRecordId]);
    const old = detail.lineage[0]!;
    expect(old.identity.strategyVersion).toBe(1);
    expect(old.supersededAt).not.toBeNull();
    expect(old.backtest!.metrics).toEqual(before.backtest!.metrics);
  });

  it('a buyer and a stranger never see the source on any marketplace route; the seller does', { timeout: 120_000 }, async () => {
    const purchase = await buyer.client.marketplace.purchase({ params: { id: hourly.id }, body: {} });
    expect(purchase.status).toBe('completed');
    const routes = [
      '/api/marketplace',
      `/api/marketplace?search=${word}`,
      '/api/marketplace?sort=dsr',
      '/api/marketplace?sort=forwardDays&minBadge=insufficient',
      `/api/marketplace/${hourly.id}`,
      `/api/marketplace/${hourly.id}/record`,
      `/api/marketplace/${minute.id}/record`,
      `/api/marketplace/${hourly.id}/reviews`,
      '/api/marketplace/purchases',
      '/api/marketplace/my-listings',
      `/api/strategies/${strategyId}`,
      `/api/strategies/${strategyId}?version=1`,
    ];
    for (const user of [buyer, stranger]) {
      for (const path of routes) {
        const { status, text } = await service.raw(user, path);
        expect(text, `${path} as ${user === buyer ? 'buyer' : 'stranger'}`).not.toContain(MARKER);
        if (path.startsWith('/api/strategies/')) expect(status, path).toBe(404);
        else expect(status, `${path}: ${text}`).toBe(200);
      }
    }
    // the record route answered with the record itself, not an empty body
    const record = JSON.parse((await service.raw(buyer, `/api/marketplace/${hourly.id}/record`)).text) as { current: { status: string } };
    expect(record.current.status).toBe('ready');
    // the assertion above can fail: the seller's own strategy route carries the marker
    expect((await service.raw(seller, `/api/strategies/${strategyId}`)).text).toContain(MARKER);
    expect((await seller.client.strategies.get({ params: { id: strategyId } })).source).toContain(MARKER);
  });

  it('search sorts by forwardDays and filters by minBadge and minForwardDays', async () => {
    const byDays = await stranger.client.marketplace.search({ query: { sort: 'forwardDays', search: word } });
    const ids = byDays.listings.map((l) => l.id);
    expect(ids.sort()).toEqual([hourly.id, minute.id].sort());
    const days = byDays.listings.map((l) => l.record?.forwardDays ?? -1);
    expect(days).toEqual([...days].sort((a, b) => b - a));
    // the 1m record has gained forward candles; the hourly one's new version started later
    expect(byDays.listings[0]!.id).toBe(minute.id);
    expect(byDays.listings[0]!.record!.forwardDays).toBeGreaterThan(0);

    const insufficient = await stranger.client.marketplace.search({ query: { minBadge: 'insufficient', search: word } });
    expect(insufficient.listings.map((l) => l.id).sort()).toEqual([hourly.id, minute.id].sort());
    const established = await stranger.client.marketplace.search({ query: { minBadge: 'established', search: word } });
    expect(established.listings).toEqual([]);
    const anyDays = await stranger.client.marketplace.search({ query: { minForwardDays: 0, search: word } });
    expect(anyDays.listings).toHaveLength(2);
    // a fast clock of 60 makes a forward day 24 real minutes: none has one yet
    const oneDay = await stranger.client.marketplace.search({ query: { minForwardDays: 1, search: word } });
    expect(oneDay.listings).toEqual([]);
    for (const sort of ['forwardReturn', 'forwardSharpe', 'dsr', 'newest'] as const) {
      const page = await stranger.client.marketplace.search({ query: { sort, search: word } });
      expect(page.listings, sort).toHaveLength(2);
    }
  });

  it('delisting hides the listing from search, and its record stays readable for the seller, a buyer and a stranger', { timeout: 60_000 }, async () => {
    const before = (await seller.client.marketplace.record({ params: { id: hourly.id } })).current!;
    const gone = await service.raw(seller, `/api/marketplace/${hourly.id}`, { method: 'DELETE' });
    expect(gone.status).toBe(204);
    for (const user of [seller, buyer, stranger]) {
      const detail = await user.client.marketplace.record({ params: { id: hourly.id } });
      expect(detail.listed).toBe(false);
      expect(detail.name).toBe(`${word} hourly`);
      expect(detail.current!.id).toBe(before.id);
      expect(detail.current!.backtest!.metrics).toEqual(before.backtest!.metrics);
      expect(detail.lineage.map((r) => r.id)).toEqual([firstRecordId]);
    }
    const all = await stranger.client.marketplace.search({ query: {} });
    expect(all.listings.map((l) => l.id)).not.toContain(hourly.id);
    expect(all.listings.map((l) => l.id)).toContain(minute.id);
    const searched = await buyer.client.marketplace.search({ query: { search: word, sort: 'forwardDays' } });
    expect(searched.listings.map((l) => l.id)).toEqual([minute.id]);
  });
});
