import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BADGE_RANK, type ListingRecordSummary } from '@stratbox/contract';
import { at, tieIds, uid } from './contract-fixtures.js';
import { optimization } from './optimization-contract-fixtures.js';
import {
  listingSearchPosition,
  listingSortValue,
  type BacktestRecord,
  type ListingRecord,
  type ListingSearch,
  type ListingSearchPosition,
  type ListingSearchSort,
  type Store,
  type StrategyRecord,
  type VerificationRecordRow,
} from '../ports/store.js';

/*
 * The Store contract of verified listings (store-verification.ts): verification records, the
 * record summary listings carry for search (sort keys, evidence filters, paging by value), and
 * the search effort counts of backtests and optimizations. Run by `describeStoreContract` with
 * its shared store. Records and listings are across sellers, so every test keeps to its own:
 * its own listing ids, a search word of its own, and `listCurrent` times of its own far future.
 */

/** What the enclosing suite gives each test. */
export type VerificationContext = () => {
  store: Store;
  userId: string;
  otherUserId: string;
  backtest: (userId: string, overrides?: Partial<BacktestRecord>) => BacktestRecord;
  insertStrategy: (owner: string, overrides?: Partial<StrategyRecord>) => Promise<StrategyRecord>;
};

/** A random lower-case word (letters only), unique to a test. */
const word = () =>
  `w${randomBytes(8)
    .toString('hex')
    .replace(/[0-9]/g, (d) => 'ghijklmnop'[Number(d)]!)}`;

let futureYear = 2100;
/** Timestamps of a year no other test of this suite uses (listCurrent is across sellers): `seconds` into it. */
const futureClock = () => {
  const base = Date.UTC(futureYear++, 0, 1);
  return (seconds: number) => new Date(base + seconds * 1000).toISOString();
};

/** Float64 pairs `[timeMs, equity]`, little-endian, as a view into a larger buffer (offset 3), with awkward values. */
function forwardPoints(): Uint8Array {
  const values = [Date.UTC(2026, 0, 2), 10_000, Date.UTC(2026, 0, 2, 1), -0, Date.UTC(2026, 0, 2, 2), 5e-324, Date.UTC(2026, 0, 2, 3), Number.NaN];
  const outer = new Uint8Array(3 + values.length * 8 + 5).fill(0xab);
  const view = new DataView(outer.buffer, 3, values.length * 8);
  values.forEach((v, i) => view.setFloat64(i * 8, v, true));
  return outer.subarray(3, 3 + values.length * 8);
}

const metrics = (over: Partial<NonNullable<VerificationRecordRow['backtest']>['metrics']> = {}) => ({
  totalReturn: 0.123456789012345,
  cagr: 0.061,
  maxDrawdown: -0.2,
  maxDrawdownRecoveryDays: null,
  sharpe: 1.25,
  psr: 0.97,
  dsr: 0.4,
  exposure: 0.5,
  tradeCount: 42,
  feesPaid: 12.5,
  fundingPaid: -3.25,
  ...over,
});

function record(listingId: string, overrides: Partial<VerificationRecordRow> = {}): VerificationRecordRow {
  return {
    id: uid('vrec'),
    listingId,
    sellerId: uid('usr'),
    strategyId: uid('str'),
    status: 'ready',
    error: null,
    identity: {
      strategyVersion: 3,
      sourceSha256: 'c'.repeat(64),
      params: { fast: '12', note: 'é "quoted" ✓' },
      symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'],
      timeframe: '1h',
      marketType: 'LINEAR',
      fees: { maker: 0.0002, taker: 0.0005 },
      slippage: 0.0005,
      funding: true,
      initialCapital: 10_000,
    },
    backtest: {
      start: at(-2 * 365 * 86_400),
      end: at(-86_400),
      metrics: metrics(),
      equity: [
        { time: at(-2 * 365 * 86_400), equity: 10_000 },
        { time: at(-86_400), equity: 11_234.5678901234 },
      ],
    },
    forward: {
      start: at(0),
      lastCandleAt: at(3 * 3600),
      candles: 4,
      days: 0.125,
      metrics: null,
      equity: [{ time: at(0), equity: 10_000 }],
      points: forwardPoints(),
    },
    searchEffort: { backtests: 17, trials: 480, total: 497 },
    badge: 'insufficient',
    createdAt: at(0),
    supersededAt: null,
    updatedAt: at(0),
    ...overrides,
  };
}

const hex = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
/** A record with its points as hex, so that byte-exact comparison reads well. */
const comparable = (r: VerificationRecordRow | null) => r && { ...r, forward: { ...r.forward, points: hex(r.forward.points) } };

function listing(sellerId: string, overrides: Partial<ListingRecord> = {}): ListingRecord {
  return {
    id: uid('lst'),
    sellerId,
    strategyId: uid('str'),
    strategyVersion: 1,
    name: 'Trend follower',
    description: 'Rides trends',
    price: 0,
    tags: ['trend'],
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

function summary(overrides: Partial<ListingRecordSummary> = {}): ListingRecordSummary {
  return {
    badge: 'insufficient',
    status: 'ready',
    backtestReturn: 0.25,
    forwardReturn: 0.01,
    forwardSharpe: 0.5,
    forwardDays: 12.5,
    forwardTrades: 3,
    dsr: 0.3,
    searchEffort: 10,
    ...overrides,
  };
}

const RECORD_SORTS = ['forwardReturn', 'forwardSharpe', 'dsr', 'forwardDays'] as const;

/** The search order the port documents: the figure highest first, nulls last, then (createdAt desc, id desc). */
function expectedOrder(rows: readonly ListingRecord[], sort: ListingSearchSort): ListingRecord[] {
  const newest = (a: ListingRecord, b: ListingRecord) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = listingSortValue(a, sort);
    const y = listingSortValue(b, sort);
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return y - x;
    }
    return newest(a, b);
  });
}

/** Every page of a search, following `listingSearchPosition` of each page's last row. */
async function readSearchPages(store: Store, criteria: ListingSearch, limit: number): Promise<ListingRecord[][]> {
  const pages: ListingRecord[][] = [];
  let after: ListingSearchPosition | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await store.listings.search(criteria, after ? { limit, after } : { limit });
    pages.push(page);
    const last = page[page.length - 1];
    if (page.length < limit || !last) return pages;
    after = listingSearchPosition(last, criteria.sort ?? 'newest');
  }
  throw new Error('Pagination did not end');
}

export function describeVerificationContract(context: VerificationContext): void {
  describe('verificationRecords', () => {
    it('finds an inserted record by id exactly as stored (JSON fields, points byte for byte); a missing one is null; a taken id throws', async () => {
      const { store } = context();
      const r = record(uid('lst'), { error: { code: 'NO_DATA', message: 'No candles for "XYZ/USDT" ✓' }, status: 'failed' });
      await store.verificationRecords.insert(r);
      const found = await store.verificationRecords.findById(r.id);
      expect(comparable(found)).toEqual(comparable(r));
      expect(found?.forward.points).toBeInstanceOf(Uint8Array);
      expect(found?.forward.points?.byteLength).toBe(64);
      expect(await store.verificationRecords.findById(uid('vrec'))).toBeNull();
      await expect(store.verificationRecords.insert(record(uid('lst'), { id: r.id }))).rejects.toThrow();
      expect(comparable(await store.verificationRecords.findById(r.id))).toEqual(comparable(r));
    });

    it('keeps a record without points or backtest as such, and empty points as empty', async () => {
      const { store } = context();
      const { points: _points, ...forward } = record('x').forward;
      const none = record(uid('lst'), { backtest: null, status: 'pending', forward });
      const empty = record(uid('lst'), { forward: { ...forward, points: new Uint8Array(0) } });
      await store.verificationRecords.insert(none);
      await store.verificationRecords.insert(empty);
      const a = await store.verificationRecords.findById(none.id);
      expect(a).toEqual(none);
      expect(a?.forward.points).toBeUndefined();
      expect(a?.backtest).toBeNull();
      expect(hex((await store.verificationRecords.findById(empty.id))?.forward.points)).toBe('');
    });

    it("lists a listing's records newest first by (createdAt desc, id desc), and no other listing's", async () => {
      const { store } = context();
      const listingId = uid('lst');
      const ids = tieIds('vrec');
      const rows = [
        record(listingId, { id: ids[0], createdAt: at(10), supersededAt: at(20) }),
        record(listingId, { id: ids[1], createdAt: at(10), supersededAt: at(20) }),
        record(listingId, { id: ids[2], createdAt: at(20) }),
        record(listingId, { id: ids[3], createdAt: at(5), supersededAt: at(10) }),
        record(listingId, { id: ids[4], createdAt: at(10), supersededAt: at(20) }),
      ];
      for (const r of rows) await store.verificationRecords.insert(r);
      await store.verificationRecords.insert(record(uid('lst'), { createdAt: at(15) }));
      const listed = await store.verificationRecords.listByListing(listingId);
      const expectedIds = [ids[2], ...[ids[0], ids[1], ids[4]].sort().reverse(), ids[3]];
      expect(listed.map((r) => r.id)).toEqual(expectedIds);
      expect(listed.map(comparable)).toEqual(expectedIds.map((id) => comparable(rows.find((r) => r.id === id)!)));
      expect(await store.verificationRecords.listByListing(uid('lst'))).toEqual([]);
    });

    it('updates only from the expected updatedAt (a compare-and-set): of two updates from the same one exactly one wins', async () => {
      const { store } = context();
      const r = record(uid('lst'), { status: 'pending', backtest: null, updatedAt: at(0) });
      await store.verificationRecords.insert(r);

      const points = forwardPoints();
      const [a, b] = await Promise.all([
        store.verificationRecords.update(r.id, at(0), { forward: { ...r.forward, candles: 5, points }, updatedAt: at(1) }),
        store.verificationRecords.update(r.id, at(0), { status: 'failed', error: { code: 'X', message: 'y' }, updatedAt: at(2) }),
      ]);
      expect([a, b].filter((x) => x !== null)).toHaveLength(1);
      const winner = (a ?? b)!;
      expect(comparable(await store.verificationRecords.findById(r.id))).toEqual(comparable(winner));
      if (a) expect(winner).toMatchObject({ status: 'pending', updatedAt: at(1), forward: { candles: 5 } });
      else expect(winner).toMatchObject({ status: 'failed', error: { code: 'X', message: 'y' }, updatedAt: at(2), forward: { candles: 4 } });

      // A stale updatedAt changes nothing; the current one applies the patch's defined fields only.
      expect(await store.verificationRecords.update(r.id, at(0), { badge: 'established', updatedAt: at(9) })).toBeNull();
      const backtest = record('x').backtest;
      const next = await store.verificationRecords.update(r.id, winner.updatedAt, {
        status: 'ready',
        error: null,
        backtest,
        badge: 'emerging',
        supersededAt: undefined,
        updatedAt: at(3),
      });
      const expected = { ...winner, status: 'ready', error: null, backtest, badge: 'emerging', updatedAt: at(3) };
      expect(comparable(next)).toEqual(comparable(expected as VerificationRecordRow));
      expect(comparable(await store.verificationRecords.findById(r.id))).toEqual(comparable(expected as VerificationRecordRow));
      expect(await store.verificationRecords.update(uid('vrec'), at(0), { updatedAt: at(4) })).toBeNull();
    });

    it('replaces the forward record whole, its points byte for byte (a forward without points leaves none)', async () => {
      const { store } = context();
      const r = record(uid('lst'));
      await store.verificationRecords.insert(r);
      const longer = new Uint8Array(8 * 1000);
      for (let i = 0; i < longer.length; i++) longer[i] = (i * 37 + 11) & 0xff;
      const grown = await store.verificationRecords.update(r.id, r.updatedAt, {
        forward: { ...r.forward, candles: 500, days: 20.75, metrics: metrics({ dsr: null }), points: longer },
        updatedAt: at(1),
      });
      expect(hex(grown?.forward.points)).toBe(hex(longer));
      expect(hex((await store.verificationRecords.findById(r.id))?.forward.points)).toBe(hex(longer));
      expect((await store.verificationRecords.findById(r.id))?.forward).toMatchObject({ candles: 500, days: 20.75, metrics: metrics({ dsr: null }) });

      const { points: _points, ...withoutPoints } = r.forward;
      await store.verificationRecords.update(r.id, at(1), { forward: withoutPoints, updatedAt: at(2) });
      expect((await store.verificationRecords.findById(r.id))?.forward).toEqual(withoutPoints);
    });

    it('lists current records in the given statuses oldest first, superseded ones excluded, strictly after the position, at most limit', async () => {
      const { store } = context();
      const t = futureClock();
      const ids = tieIds('vrec');
      const mine = [
        record(uid('lst'), { id: ids[0], status: 'pending', createdAt: t(1) }),
        record(uid('lst'), { id: ids[1], status: 'ready', createdAt: t(1) }),
        record(uid('lst'), { id: ids[2], status: 'ready', createdAt: t(1) }),
        record(uid('lst'), { id: ids[3], status: 'ready', createdAt: t(0) }),
        record(uid('lst'), { status: 'pending', createdAt: t(2) }),
        record(uid('lst'), { status: 'ready', createdAt: t(3) }),
      ];
      const failed = record(uid('lst'), { status: 'failed', createdAt: t(1) });
      const superseded = record(uid('lst'), { status: 'ready', createdAt: t(2), supersededAt: t(5) });
      const laterSuperseded = record(uid('lst'), { status: 'ready', createdAt: t(2) });
      for (const r of [...mine, failed, superseded, laterSuperseded]) await store.verificationRecords.insert(r);
      expect(await store.verificationRecords.update(laterSuperseded.id, laterSuperseded.updatedAt, { supersededAt: t(6), updatedAt: t(6) })).not.toBeNull();

      const start = { createdAt: t(-1), id: '' };
      const oldest = (a: VerificationRecordRow, b: VerificationRecordRow) =>
        a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1;
      const expected = [...mine].sort(oldest).map((r) => r.id);
      for (const limit of [1, 2, 3, 4, 100]) {
        const seen: string[] = [];
        let after = start;
        for (let i = 0; i < 20; i++) {
          const page = await store.verificationRecords.listCurrent(['pending', 'ready'], limit, after);
          expect(page.length).toBeLessThanOrEqual(limit);
          seen.push(...page.map((r) => r.id));
          const last = page[page.length - 1];
          if (page.length < limit || !last) break;
          after = { createdAt: last.createdAt, id: last.id };
        }
        expect(seen).toEqual(expected);
      }
      const readyOnly = await store.verificationRecords.listCurrent(['ready'], 100, start);
      expect(readyOnly.map((r) => r.id)).toEqual(
        mine
          .filter((r) => r.status === 'ready')
          .sort(oldest)
          .map((r) => r.id),
      );
      expect((await store.verificationRecords.listCurrent(['failed'], 100, start)).map((r) => r.id)).toEqual([failed.id]);
      expect(await store.verificationRecords.listCurrent([], 100, start)).toEqual([]);
      expect(await store.verificationRecords.listCurrent(['ready'], 0, start)).toEqual([]);
      const full = (await store.verificationRecords.listCurrent(['ready'], 1, { createdAt: t(0), id: ids[3]! }))[0];
      expect(comparable(full ?? null)).toEqual(comparable(mine.find((r) => r.id === [ids[1]!, ids[2]!].sort()[0])!));
    });

    it('commits with the transaction, and a rolled-back insert or update leaves nothing', async () => {
      const { store } = context();
      const kept = record(uid('lst'));
      const dropped = record(uid('lst'));
      await store.transaction(async (tx) => {
        await tx.verificationRecords.insert(kept);
        expect(comparable(await tx.verificationRecords.findById(kept.id))).toEqual(comparable(kept));
      });
      await expect(
        store.transaction(async (tx) => {
          await tx.verificationRecords.insert(dropped);
          await tx.verificationRecords.update(kept.id, kept.updatedAt, { badge: 'established', updatedAt: at(1) });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await store.verificationRecords.findById(dropped.id)).toBeNull();
      expect(comparable(await store.verificationRecords.findById(kept.id))).toEqual(comparable(kept));
    });
  });

  describe('listing record summaries', () => {
    it('sets and clears the summary of any listing, returned by every read, without changing updatedAt; a missing listing is false', async () => {
      const { store, userId } = context();
      const l = listing(userId, { name: word(), updatedAt: at(7) });
      await store.listings.insert(l);
      expect(await store.listings.findById(l.id)).toEqual({ ...l, recordSummary: null });

      const s = summary({ badge: 'emerging', forwardReturn: -0.0123456789, dsr: null });
      expect(await store.listings.setRecordSummary(l.id, s)).toBe(true);
      const withSummary = { ...l, recordSummary: s };
      expect(await store.listings.findById(l.id)).toEqual(withSummary);
      expect(await store.listings.findBySeller(userId, l.id)).toEqual(withSummary);
      expect(await store.listings.search({ text: l.name }, { limit: 10 })).toEqual([withSummary]);
      expect(await store.listings.listByStrategy(userId, l.strategyId)).toEqual([withSummary]);
      expect((await store.listings.listBySeller(userId, { limit: 10 })).find((x) => x.id === l.id)).toEqual(withSummary);

      // Another change keeps it; an unlisted listing's summary can still be set.
      await store.listings.update(userId, l.id, { price: 900, status: 'unlisted', updatedAt: at(8) });
      expect(await store.listings.findById(l.id)).toEqual({ ...withSummary, price: 900, status: 'unlisted', updatedAt: at(8) });
      expect(await store.listings.setRecordSummary(l.id, null)).toBe(true);
      expect((await store.listings.findById(l.id))?.recordSummary).toBeNull();
      expect(await store.listings.setRecordSummary(uid('lst'), s)).toBe(false);
    });

    it('takes a summary given to insert', async () => {
      const { store, userId } = context();
      const l = listing(userId, { recordSummary: summary({ badge: 'established' }) });
      await store.listings.insert(l);
      expect(await store.listings.findById(l.id)).toEqual(l);
    });

    it('sorts by every record key highest first, nulls last, ties newest first, and pages without repeats or gaps', async () => {
      const { store, userId, otherUserId } = context();
      const name = word();
      const ids = [...tieIds('lst'), ...tieIds('lst'), ...tieIds('lst'), ...tieIds('lst'), ...tieIds('lst')];
      const returns = [0.5, -0.25, 0.5, 0, null, 1e-9];
      const rows: ListingRecord[] = [];
      for (let i = 0; i < 25; i++) {
        const l = listing(i % 2 === 0 ? userId : otherUserId, { id: ids[i]!, name: `${name} ${i}`, createdAt: at(i % 4) });
        await store.listings.insert(l);
        // Every fifth listing has no record; the others tie often on each key, with nulls.
        const s =
          i % 5 === 0
            ? null
            : summary({
                forwardReturn: returns[i % 6]!,
                forwardSharpe: i % 3 === 0 ? null : (i % 4) - 1.5,
                dsr: i % 7 === 0 ? null : (i % 2) * 0.9,
                forwardDays: [0, 30, 90.5, 180][i % 4]!,
              });
        if (s) expect(await store.listings.setRecordSummary(l.id, s)).toBe(true);
        rows.push({ ...l, recordSummary: s });
      }
      // Unlisted listings with the best figures are never found.
      const hidden = listing(userId, { name: `${name} hidden`, status: 'unlisted' });
      await store.listings.insert(hidden);
      await store.listings.setRecordSummary(hidden.id, summary({ forwardReturn: 99, forwardSharpe: 99, dsr: 1, forwardDays: 999 }));

      for (const sort of ['newest', ...RECORD_SORTS] as const) {
        const expected = expectedOrder(rows, sort);
        for (const limit of [7, 1, 25]) {
          const pages = await readSearchPages(store, { text: name, sort }, limit);
          expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
          expect(pages.flat().map((l) => l.id)).toEqual(expected.map((l) => l.id));
        }
        expect(await store.listings.search({ text: name, sort }, { limit: 25 })).toEqual(expected);
      }
      // The order documented: a figure beats a null figure, which ties with no record.
      const byReturn = expectedOrder(rows, 'forwardReturn');
      expect(byReturn[0]?.recordSummary?.forwardReturn).toBe(0.5);
      expect(byReturn.slice(-5).every((l) => (l.recordSummary ?? null) === null || l.recordSummary?.forwardReturn === null)).toBe(true);
    });

    it('filters by a minimum badge rank and minimum forward days (inclusive), with any sort; a listing without a record passes only minimums of 0', async () => {
      const { store, userId } = context();
      const name = word();
      const make = async (s: ListingRecordSummary | null, seconds: number) => {
        const l = listing(userId, { name, createdAt: at(seconds) });
        await store.listings.insert(l);
        if (s) await store.listings.setRecordSummary(l.id, s);
        return { ...l, recordSummary: s };
      };
      const none = await make(null, 0);
      const insufficient = await make(summary({ badge: 'insufficient', forwardDays: 10 }), 1);
      const emerging = await make(summary({ badge: 'emerging', forwardDays: 90 }), 2);
      const established = await make(summary({ badge: 'established', forwardDays: 200.5 }), 3);
      const ids = (rows: ListingRecord[]) => rows.map((r) => r.id);
      const search = (criteria: Omit<ListingSearch, 'text'>) => store.listings.search({ text: name, ...criteria }, { limit: 50 });

      expect(ids(await search({ minBadgeRank: 0 }))).toEqual(ids([established, emerging, insufficient, none]));
      expect(ids(await search({ minBadgeRank: BADGE_RANK.emerging }))).toEqual(ids([established, emerging]));
      expect(ids(await search({ minBadgeRank: BADGE_RANK.established }))).toEqual(ids([established]));
      expect(ids(await search({ minForwardDays: 0 }))).toEqual(ids([established, emerging, insufficient, none]));
      expect(ids(await search({ minForwardDays: 10 }))).toEqual(ids([established, emerging, insufficient]));
      expect(ids(await search({ minForwardDays: 90 }))).toEqual(ids([established, emerging]));
      expect(ids(await search({ minForwardDays: 90.5 }))).toEqual(ids([established]));
      expect(ids(await search({ minBadgeRank: 1, minForwardDays: 100, sort: 'forwardDays' }))).toEqual(ids([established]));
      expect(ids(await search({ sort: 'forwardDays' }))).toEqual(ids([established, emerging, insufficient, none]));
      await store.listings.update(userId, established.id, { status: 'unlisted' });
      expect(ids(await search({ minBadgeRank: 1 }))).toEqual(ids([emerging]));
      expect(ids(await store.listings.search({ text: name, tags: ['trend'], minBadgeRank: 1, sort: 'dsr' }, { limit: 50 }))).toEqual(ids([emerging]));
    });
  });

  describe('search effort counts', () => {
    it("counts the user's backtests of the strategy, any version and status, created strictly before the time", async () => {
      const { store, userId, otherUserId, backtest } = context();
      const strategyId = uid('str');
      const rows = [
        backtest(userId, { strategyId, strategyVersion: 1, status: 'completed', createdAt: at(1) }),
        backtest(userId, { strategyId, strategyVersion: 2, status: 'failed', createdAt: at(2) }),
        backtest(userId, { strategyId, strategyVersion: 3, status: 'cancelled', createdAt: at(9) }),
        backtest(userId, { strategyId, strategyVersion: 3, status: 'queued', createdAt: at(10) }),
        backtest(userId, { strategyId, createdAt: at(11) }),
        backtest(userId, { createdAt: at(1) }),
        backtest(otherUserId, { strategyId, createdAt: at(1) }),
      ];
      for (const b of rows) await store.backtests.insert(b);
      expect(await store.backtests.countForStrategy(userId, strategyId, at(10))).toBe(3);
      expect(await store.backtests.countForStrategy(userId, strategyId, at(11))).toBe(4);
      expect(await store.backtests.countForStrategy(userId, strategyId, at(1))).toBe(0);
      expect(await store.backtests.countForStrategy(otherUserId, strategyId, at(100))).toBe(1);
      expect(await store.backtests.countForStrategy(userId, uid('str'), at(100))).toBe(0);
    });

    it("sums the trials of the user's optimizations of the strategy, any version and status, created strictly before the time", async () => {
      const { store, userId, otherUserId, insertStrategy } = context();
      const s = await insertStrategy(userId);
      const other = await insertStrategy(userId);
      const rows = [
        optimization(userId, s.id, { strategyVersion: 1, status: 'completed', trialsDone: 120, createdAt: at(1) }),
        optimization(userId, s.id, { strategyVersion: 1, status: 'failed', trialsDone: 7, createdAt: at(2) }),
        optimization(userId, s.id, { status: 'queued', trialsDone: 0, createdAt: at(3) }),
        optimization(userId, s.id, { status: 'running', trialsDone: 50, createdAt: at(10) }),
        optimization(userId, other.id, { trialsDone: 1000, createdAt: at(1) }),
        optimization(otherUserId, s.id, { trialsDone: 300, createdAt: at(1) }),
      ];
      for (const o of rows) await store.optimizations.insert(o);
      expect(await store.optimizations.sumTrialsForStrategy(userId, s.id, at(10))).toBe(127);
      expect(await store.optimizations.sumTrialsForStrategy(userId, s.id, at(11))).toBe(177);
      expect(await store.optimizations.sumTrialsForStrategy(userId, s.id, at(1))).toBe(0);
      expect(await store.optimizations.sumTrialsForStrategy(otherUserId, s.id, at(100))).toBe(300);
      expect(await store.optimizations.sumTrialsForStrategy(userId, uid('str'), at(100))).toBe(0);
    });
  });
}
