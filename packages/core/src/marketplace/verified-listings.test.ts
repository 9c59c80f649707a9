import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingRecordSummary } from '@stratbox/contract';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import { StratboxError } from '../errors/stratbox-error.js';
import { createSilentLogger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';

const MARKER = 'SOURCE-MARKER-9c41e7d2';
const SOURCE = `// ${MARKER}\nexport const meta = { timeframe: '4h', params: { fast: { type: 'int', default: 12 } } };\nexport function onCandle(ctx, c) { if (c.close > 1e9) ctx.buy(c.symbol, { quantity: 1 }); }\n`;
const V2 = `${SOURCE}// ${MARKER}-v2\n`;

let stratbox: Stratbox;
let store: Store;
const [seller, buyer, stranger] = [newId('user'), newId('user'), newId('user')];
const headers = {};
const api = <K extends keyof Stratbox['api']>(key: K, userId: string, input: Record<string, unknown> = {}) =>
  (stratbox.api[key] as (ctx: unknown) => Promise<unknown>)({ params: {}, query: {}, body: undefined, headers, userId, ...input });

async function failure(work: Promise<unknown>): Promise<StratboxError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StratboxError);
  return error as StratboxError;
}

async function newStrategy(source = SOURCE, marketType: 'LINEAR' | 'SPOT' = 'LINEAR') {
  return stratbox.strategies.create(seller, { name: 'Edge', description: '', source, marketType });
}

async function listed(description = 'Trend rider', extra: Record<string, unknown> = {}) {
  const strategy = await newStrategy();
  const listing = (await api('marketplace.create', seller, { body: { strategyId: strategy.id, name: 'Edge', description, price: 0, tags: [], ...extra } })) as {
    id: string;
    record: ListingRecordSummary | null;
  };
  return { strategy, listing };
}

beforeAll(() => {
  store = createMemoryStore();
  stratbox = createStratbox({ store, logger: createSilentLogger(), workerConcurrency: 0, optimizations: { concurrency: 0 }, sandbox: { size: 1 } });
});
afterAll(() => stratbox.close());

describe('verified listings: the service and the API', () => {
  it('a new listing has a pending record, stored with it, on the default symbol and the declared timeframe', async () => {
    const { listing } = await listed();
    expect(listing.record).toMatchObject({ status: 'pending', badge: 'insufficient', forwardDays: 0, backtestReturn: null });
    const rows = await store.verificationRecords.listByListing(listing.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'pending', supersededAt: null, identity: { symbols: ['BTC/USDT:USDT'], timeframe: '4h', params: { fast: '12' } } });
    const got = (await api('marketplace.get', stranger, { params: { id: listing.id } })) as { record: unknown };
    expect(got.record).toEqual(listing.record);
  });

  it("keeps the seller's symbols and timeframe, and refuses symbols of the other market type", async () => {
    const { listing } = await listed('x', { symbols: ['ETH/USDT:USDT', 'BTC/USDT:USDT'], timeframe: '1d' });
    const [row] = await store.verificationRecords.listByListing(listing.id);
    expect(row!.identity).toMatchObject({ symbols: ['ETH/USDT:USDT', 'BTC/USDT:USDT'], timeframe: '1d', marketType: 'LINEAR' });
    const strategy = await newStrategy();
    const error = await failure(api('marketplace.create', seller, { body: { strategyId: strategy.id, name: 'E', price: 0, symbols: ['BTC/USDT'] } }));
    expect(error.code).toBe('VALIDATION_FAILED');
    const spot = await newStrategy(SOURCE, 'SPOT');
    const spotListing = (await api('marketplace.create', seller, { body: { strategyId: spot.id, name: 'E', price: 0 } })) as { id: string };
    expect((await store.verificationRecords.listByListing(spotListing.id))[0]!.identity.symbols).toEqual(['BTC/USDT']);
  });

  it('writes the listing and its record in one transaction: a record that cannot be stored leaves no listing', async () => {
    const strategy = await newStrategy();
    const before = ((await api('marketplace.myListings', seller)) as { listings: unknown[] }).listings.length;
    const insert = store.verificationRecords.insert;
    const original = store.transaction.bind(store);
    store.transaction = ((work: (tx: Store) => Promise<unknown>) =>
      original(async (tx) => {
        tx.verificationRecords.insert = async () => {
          throw new Error('disk full');
        };
        return work(tx as Store);
      })) as Store['transaction'];
    try {
      await expect(api('marketplace.create', seller, { body: { strategyId: strategy.id, name: 'Atomic', price: 0 } })).rejects.toThrow('disk full');
    } finally {
      store.transaction = original;
      store.verificationRecords.insert = insert;
    }
    expect(((await api('marketplace.myListings', seller)) as { listings: unknown[] }).listings).toHaveLength(before);
  });

  it('the record answers the seller, a buyer and a stranger alike, and after unlisting; an id that never existed is 404', async () => {
    const { listing } = await listed('Returned 45 % in backtests, max drawdown 5 %');
    await api('marketplace.purchase', buyer, { params: { id: listing.id } });
    for (const user of [seller, buyer, stranger]) {
      const record = (await api('marketplace.record', user, { params: { id: listing.id } })) as Record<string, unknown>;
      expect(record).toMatchObject({ listingId: listing.id, listed: true, lineage: [], buyers: null, current: { status: 'pending', badge: 'insufficient' } });
      expect(record.claims).toEqual([
        { text: 'Returned 45 %', kind: 'return', claimed: 0.45, verified: null },
        { text: 'max drawdown 5 %', kind: 'drawdown', claimed: 0.05, verified: null },
      ]);
    }
    await api('marketplace.unlist', seller, { params: { id: listing.id } });
    for (const user of [seller, buyer, stranger]) {
      expect(await api('marketplace.record', user, { params: { id: listing.id } })).toMatchObject({ listed: false, current: { status: 'pending' } });
    }
    const search = (await api('marketplace.search', stranger, { query: { limit: 200 } })) as { listings: Array<{ id: string }> };
    expect(search.listings.map((l) => l.id)).not.toContain(listing.id);
    expect((await failure(api('marketplace.get', stranger, { params: { id: listing.id } }))).code).toBe('NOT_FOUND');
    expect((await failure(api('marketplace.record', stranger, { params: { id: newId('listing') } }))).code).toBe('NOT_FOUND');
  });

  it('a new version starts a new record and keeps the old one in the lineage, superseded', async () => {
    const { strategy, listing } = await listed('x', { timeframe: '1d' });
    const [first] = await store.verificationRecords.listByListing(listing.id);
    await stratbox.strategies.update(seller, strategy.id, { source: V2 });
    const updated = (await api('marketplace.update', seller, { params: { id: listing.id }, body: { strategyVersion: 2 } })) as {
      strategyVersion: number;
      record: unknown;
    };
    expect(updated.strategyVersion).toBe(2);
    expect(updated.record).toMatchObject({ status: 'pending' });
    const detail = (await api('marketplace.record', stranger, { params: { id: listing.id } })) as {
      current: { id: string; identity: { strategyVersion: number; timeframe: string }; supersededAt: string | null };
      lineage: Array<{ id: string; identity: { strategyVersion: number }; supersededAt: string | null }>;
    };
    expect(detail.current.identity).toMatchObject({ strategyVersion: 2, timeframe: '1d' });
    expect(detail.current.supersededAt).toBeNull();
    expect(detail.lineage.map((r) => [r.id, r.identity.strategyVersion])).toEqual([[first!.id, 1]]);
    expect(detail.lineage[0]!.supersededAt).not.toBeNull();
    // a change of name alone starts nothing
    await api('marketplace.update', seller, { params: { id: listing.id }, body: { name: 'Renamed' } });
    expect(await store.verificationRecords.listByListing(listing.id)).toHaveLength(2);
  });

  it('search sorts by the record and filters by badge and forward days, paging with the sort value', async () => {
    const summary = (s: Partial<ListingRecordSummary>): ListingRecordSummary => ({
      badge: 'insufficient',
      status: 'ready',
      backtestReturn: 0.1,
      forwardReturn: null,
      forwardSharpe: null,
      forwardDays: 0,
      forwardTrades: 0,
      dsr: null,
      searchEffort: 1,
      ...s,
    });
    const tag = `t${Date.now() % 100000}`;
    const made: Record<string, string> = {};
    for (const [name, s] of [
      ['low', summary({ forwardReturn: -0.2, forwardDays: 10 })],
      ['high', summary({ forwardReturn: 0.5, forwardDays: 200, badge: 'established' })],
      ['mid', summary({ forwardReturn: 0.1, forwardDays: 100, badge: 'emerging' })],
      ['none', summary({})],
    ] as const) {
      const { listing } = await listed(name, { tags: [tag] });
      made[name] = listing.id;
      await store.listings.setRecordSummary(listing.id, s);
    }
    const names = (list: { listings: Array<{ id: string }> }) => list.listings.map((l) => Object.keys(made).find((k) => made[k] === l.id));
    const sorted = (await api('marketplace.search', stranger, { query: { tags: tag, sort: 'forwardReturn' } })) as { listings: Array<{ id: string }> };
    expect(names(sorted)).toEqual(['high', 'mid', 'low', 'none']);
    expect(names((await api('marketplace.search', stranger, { query: { tags: tag, minBadge: 'emerging' } })) as never)).toEqual(['mid', 'high']);
    expect(names((await api('marketplace.search', stranger, { query: { tags: tag, minForwardDays: 50, sort: 'forwardDays' } })) as never)).toEqual([
      'high',
      'mid',
    ]);
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await api('marketplace.search', stranger, { query: { tags: tag, sort: 'forwardReturn', limit: 1, ...(cursor ? { cursor } : {}) } })) as {
        listings: Array<{ id: string }>;
        nextCursor: string | null;
      };
      pages.push(...(names(page) as string[]));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(pages).toEqual(['high', 'mid', 'low', 'none']);
    const first = (await api('marketplace.search', stranger, { query: { tags: tag, sort: 'forwardReturn', limit: 1 } })) as { nextCursor: string };
    const wrongSort = await failure(api('marketplace.search', stranger, { query: { tags: tag, sort: 'dsr', cursor: first.nextCursor } }));
    expect(wrongSort.code).toBe('VALIDATION_FAILED');
  });

  it("no marketplace answer, to a buyer or a stranger, contains the strategy's source", async () => {
    const { strategy, listing } = await listed('Sharpe 3.1 says the seller');
    await stratbox.strategies.update(seller, strategy.id, { source: V2 });
    await api('marketplace.update', seller, { params: { id: listing.id }, body: { strategyVersion: 2 } });
    await api('marketplace.purchase', buyer, { params: { id: listing.id } });
    await api('marketplace.review', buyer, { params: { id: listing.id }, body: { rating: 4, text: 'ok' } });
    for (const user of [buyer, stranger]) {
      const answers = [
        await api('marketplace.search', user),
        await api('marketplace.get', user, { params: { id: listing.id } }),
        await api('marketplace.record', user, { params: { id: listing.id } }),
        await api('marketplace.reviews', user, { params: { id: listing.id } }),
        await api('marketplace.purchases', user),
        await api('marketplace.myListings', user),
      ];
      for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(MARKER);
    }
    await api('marketplace.unlist', seller, { params: { id: listing.id } });
    expect(JSON.stringify(await api('marketplace.record', buyer, { params: { id: listing.id } }))).not.toContain(MARKER);
    // the marker is in what the seller reads, so the check above could fail
    expect(JSON.stringify(await stratbox.strategies.get(seller, strategy.id))).toContain(MARKER);
  });
});
