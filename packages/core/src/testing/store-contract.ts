import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { at, byNewestFirst, expectPagedOnce, readAllPages, tieIds, uid } from './contract-fixtures.js';
import type { BacktestStatus, DeploymentStatus } from '@stratbox/contract';
import type {
  BacktestPatch,
  BacktestRecord,
  BacktestResultRecord,
  CandleChunkRecord,
  DeploymentRecord,
  Store,
  StrategyRecord,
  StrategyVersionRecord,
} from '../ports/store.js';
import { describeLiveTradingContract } from './store-contract-live-trading.js';
import { describeBacktestTradesContract, readResult } from './store-contract-backtest-trades.js';
import { describeBacktestLogsContract } from './store-contract-backtest-logs.js';
import { describeDeploymentLifecycleContract } from './store-contract-deployments.js';
import { describeMarketplaceBillingContract } from './store-contract-marketplace-billing.js';
import { describeFundingRatesContract } from './store-contract-funding.js';
import { describeOptimizationsContract } from './store-contract-optimizations.js';
import { describeNotificationsContract } from './store-contract-notifications.js';
import { describeVerificationContract } from './store-contract-verification.js';
import { describeDriftContract } from './store-contract-drift.js';

/** Makes a fresh, empty store for one test file, and cleans it up afterwards. */
export type StoreFactory = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

/* ------------------------------------------------------------------------------------------ */
/* Fixtures. Every test makes its own ids, so tests share one store and never see each other. */

function strategy(userId: string, overrides: Partial<StrategyRecord> = {}): StrategyRecord {
  return {
    id: uid('str'),
    userId,
    name: 'Momentum',
    description: 'Buys strength',
    marketType: 'LINEAR',
    version: 1,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

function version(s: Pick<StrategyRecord, 'id' | 'userId'>, n: number, overrides: Partial<StrategyVersionRecord> = {}): StrategyVersionRecord {
  const source = `export default function onCandle() { return ${n}; }\n`;
  return {
    strategyId: s.id,
    userId: s.userId,
    version: n,
    source,
    sourceSha256: n.toString(16).padStart(64, '0'),
    sizeBytes: Buffer.byteLength(source, 'utf8'),
    createdAt: at(n),
    ...overrides,
  };
}

function deployment(userId: string, overrides: Partial<DeploymentRecord> = {}): DeploymentRecord {
  return {
    id: uid('dep'),
    userId,
    strategyId: uid('str'),
    strategyVersion: 3,
    credentialId: uid('cred'),
    symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'],
    params: { fast: '12', slow: '26' },
    status: 'running',
    error: null,
    createdAt: at(0),
    updatedAt: at(1),
    startedAt: at(1),
    stoppedAt: null,
    risk: null,
    leverage: null,
    marginMode: null,
    halt: null,
    preflight: null,
    reconciliation: null,
    riskState: null,
    acceptedPositions: null,
    ...overrides,
  };
}

function backtest(userId: string, overrides: Partial<BacktestRecord> = {}): BacktestRecord {
  return {
    id: uid('bt'),
    userId,
    strategyId: uid('str'),
    strategyVersion: 2,
    status: 'queued',
    progress: 0,
    processedBars: 0,
    totalBars: 0,
    symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'],
    startDate: '2025-01-01',
    endDate: '2025-12-31',
    timeframe: '1h',
    marketType: 'LINEAR',
    fees: { maker: 0.0002, taker: 0.0005 },
    leverage: 1,
    slippage: 0,
    initialCapital: 10_000,
    params: { fast: '12', slow: '26' },
    dataSource: null,
    funding: true,
    fundingSource: null,
    computeMs: 0,
    attempts: 0,
    createdAt: at(0),
    startedAt: null,
    finishedAt: null,
    error: null,
    ...overrides,
  };
}

/** A timestamp in 1990, older than every other fixture: listByStatus is across users and tests. */
const early = (seconds: number) => new Date(Date.UTC(1990, 0, 1) + seconds * 1000).toISOString();

/** UTC day `n` days after 2025-01-01, as `YYYY-MM-DD`. */
const dayOf = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

/** `values` as consecutive little-endian float64s. */
function packFloat64(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => view.setFloat64(i * 8, v, true));
  return bytes;
}

/** Reads little-endian float64s back, wherever `bytes` starts in its buffer. */
function unpackFloat64(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength / 8 }, (_, i) => view.getFloat64(i * 8, true));
}

/** A chunk of `count` one-minute candles of `day`, packed as the port says; `seed` varies the prices. */
function candleChunk(key: { source: string; symbol: string; timeframe: string }, day: string, count: number, seed = 1): CandleChunkRecord {
  const start = Date.parse(`${day}T00:00:00.000Z`);
  const values: number[] = [];
  for (let i = 0; i < count; i++) {
    const price = seed * 1000 + i + 0.1;
    values.push(start + i * 60_000, price, price + 0.5, price - 0.25, price + 0.125, seed + i / 3);
  }
  return { ...key, day, count, data: packFloat64(values) };
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
/** A chunk with its data as hex, to compare exact bytes whatever Uint8Array subclass holds them. */
const comparable = (c: CandleChunkRecord) => ({ ...c, data: hex(c.data) });

const withoutSource = ({ source: _source, ...info }: StrategyVersionRecord) => info;

/** A promise with its resolve exposed, to hold a transaction open at a known point. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/* ------------------------------------------------------------------------------------------ */

/**
 * The Store contract suite: every guarantee of the `Store` port, as vitest tests. Every Store
 * implementation runs it, e.g. `describeStoreContract('memory', async () => ({ store:
 * createMemoryStore(), cleanup: async () => {} }))`. `factory` is called once for the shared
 * store and once more for each test that needs a store of its own (closing).
 */
export function describeStoreContract(name: string, factory: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let cleanup: (() => Promise<void>) | undefined;
    /** A fresh owner for each test, and another user who must never see the owner's records. */
    let userId: string;
    let otherUserId: string;

    beforeAll(async () => {
      ({ store, cleanup } = await factory());
    });
    afterAll(async () => {
      await cleanup?.();
    });
    beforeEach(() => {
      userId = uid('usr');
      otherUserId = uid('usr');
    });

    /** Inserts a strategy with versions 1..n (n = its version) and returns it. */
    async function insertStrategy(owner: string, overrides: Partial<StrategyRecord> = {}): Promise<StrategyRecord> {
      const record = strategy(owner, overrides);
      await store.strategies.insert(record);
      for (let n = 1; n <= record.version; n++) await store.strategies.insertVersion(version(record, n));
      return record;
    }

    describe('users', () => {
      it('finds an inserted user by id, as stored', async () => {
        const user = { id: userId, name: 'Ada Lovelace ✓ "quoted" \'single\'', createdAt: at(42) };
        await store.users.insert(user);
        expect(await store.users.findById(userId)).toEqual(user);
      });

      it('returns null for a missing user', async () => {
        expect(await store.users.findById(uid('usr'))).toBeNull();
      });

      it('throws when the id exists, and keeps the first user', async () => {
        await store.users.insert({ id: userId, name: 'First', createdAt: at(1) });
        await expect(store.users.insert({ id: userId, name: 'Second', createdAt: at(2) })).rejects.toThrow();
        expect(await store.users.findById(userId)).toEqual({ id: userId, name: 'First', createdAt: at(1) });
      });
    });

    describe('apiKeys', () => {
      const hash = () => randomBytes(32).toString('hex');

      it('finds the owner of a key by its hash', async () => {
        const h = hash();
        await store.apiKeys.insert({ hash: h, userId, createdAt: at(0) });
        expect(await store.apiKeys.findUserIdByHash(h)).toBe(userId);
      });

      it('returns null for an unknown hash', async () => {
        await store.apiKeys.insert({ hash: hash(), userId, createdAt: at(0) });
        expect(await store.apiKeys.findUserIdByHash(hash())).toBeNull();
      });

      it('keeps several keys per user apart', async () => {
        const [a, b, c] = [hash(), hash(), hash()];
        await store.apiKeys.insert({ hash: a, userId, createdAt: at(0) });
        await store.apiKeys.insert({ hash: b, userId, createdAt: at(1) });
        await store.apiKeys.insert({ hash: c, userId: otherUserId, createdAt: at(2) });
        expect(await store.apiKeys.findUserIdByHash(a)).toBe(userId);
        expect(await store.apiKeys.findUserIdByHash(b)).toBe(userId);
        expect(await store.apiKeys.findUserIdByHash(c)).toBe(otherUserId);
      });

      it('throws when the hash exists, and keeps the first owner', async () => {
        const h = hash();
        await store.apiKeys.insert({ hash: h, userId, createdAt: at(0) });
        await expect(store.apiKeys.insert({ hash: h, userId: otherUserId, createdAt: at(1) })).rejects.toThrow();
        expect(await store.apiKeys.findUserIdByHash(h)).toBe(userId);
      });
    });

    describe('strategies', () => {
      describe('insert and findById', () => {
        it('finds an inserted strategy, equal to what was stored', async () => {
          const record = strategy(userId, {
            name: 'Grid 🚀 "quoted" \'single\' \\ back',
            description: 'Line one\nLine two\ttabbed',
            marketType: 'SPOT',
            version: 7,
            createdAt: at(10),
            updatedAt: at(20),
          });
          await store.strategies.insert(record);
          expect(await store.strategies.findById(userId, record.id)).toEqual(record);
        });

        it('finds it with forUpdate, outside and inside a transaction', async () => {
          const record = await insertStrategy(userId);
          expect(await store.strategies.findById(userId, record.id, { forUpdate: true })).toEqual(record);
          const inside = await store.transaction((tx) => tx.strategies.findById(userId, record.id, { forUpdate: true }));
          expect(inside).toEqual(record);
        });

        it('returns null for a missing strategy', async () => {
          expect(await store.strategies.findById(userId, uid('str'))).toBeNull();
          expect(await store.strategies.findById(userId, uid('str'), { forUpdate: true })).toBeNull();
        });

        it("returns null for another user's strategy", async () => {
          const record = await insertStrategy(otherUserId);
          expect(await store.strategies.findById(otherUserId, record.id)).toEqual(record);
          expect(await store.strategies.findById(userId, record.id)).toBeNull();
          expect(await store.transaction((tx) => tx.strategies.findById(userId, record.id, { forUpdate: true }))).toBeNull();
        });

        it('throws when the id exists, even for another user, and keeps the first', async () => {
          const record = await insertStrategy(userId, { name: 'First' });
          await expect(store.strategies.insert({ ...record, name: 'Second' })).rejects.toThrow();
          await expect(store.strategies.insert({ ...record, userId: otherUserId, name: 'Third' })).rejects.toThrow();
          expect(await store.strategies.findById(userId, record.id)).toEqual(record);
          expect(await store.strategies.findById(otherUserId, record.id)).toBeNull();
        });

        it('is not changed by mutating the inserted or returned object', async () => {
          const record = strategy(userId, { name: 'Original' });
          await store.strategies.insert(record);
          const expected = { ...record };
          record.name = 'Mutated after insert';
          const found = await store.strategies.findById(userId, record.id);
          expect(found).toEqual(expected);
          found!.name = 'Mutated after find';
          expect(await store.strategies.findById(userId, record.id)).toEqual(expected);
        });
      });

      describe('list', () => {
        it("lists only the user's strategies, newest first", async () => {
          const records = [3, 1, 4, 0, 2].map((s) => strategy(userId, { createdAt: at(s), updatedAt: at(100 - s) }));
          for (const r of records) await store.strategies.insert(r);
          await store.strategies.insert(strategy(otherUserId, { createdAt: at(2) }));
          await store.strategies.insert(strategy(otherUserId, { createdAt: at(9) }));
          const listed = await store.strategies.list(userId, { limit: 50 });
          expect(listed.map((r) => r.createdAt)).toEqual([at(4), at(3), at(2), at(1), at(0)]);
          expect(listed).toEqual([...records].sort(byNewestFirst));
        });

        it('breaks ties on createdAt by id, descending', async () => {
          const ids = tieIds('str');
          for (const id of ids) await store.strategies.insert(strategy(userId, { id, createdAt: at(5) }));
          await store.strategies.insert(strategy(userId, { createdAt: at(6) }));
          await store.strategies.insert(strategy(userId, { createdAt: at(4) }));
          const listed = await store.strategies.list(userId, { limit: 50 });
          expect(listed).toHaveLength(8);
          expect(listed.slice(1, 7).map((r) => r.id)).toEqual([...ids].sort().reverse());
          expect(listed[0]!.createdAt).toBe(at(6));
          expect(listed[7]!.createdAt).toBe(at(4));
        });

        it('returns at most `limit` rows', async () => {
          for (let i = 0; i < 4; i++) await store.strategies.insert(strategy(userId, { createdAt: at(i) }));
          expect(await store.strategies.list(userId, { limit: 3 })).toHaveLength(3);
          expect((await store.strategies.list(userId, { limit: 1 })).map((r) => r.createdAt)).toEqual([at(3)]);
          expect(await store.strategies.list(userId, { limit: 10 })).toHaveLength(4);
        });

        it('pages with `after` through every row exactly once, across ties', async () => {
          const tied = tieIds('str').map((id) => strategy(userId, { id, createdAt: at(7) }));
          const others = [9, 8, 6, 5].map((s) => strategy(userId, { createdAt: at(s) }));
          for (const r of [...tied, ...others]) await store.strategies.insert(r);
          const expected = [...tied, ...others].sort(byNewestFirst);
          await expectPagedOnce((p) => store.strategies.list(userId, p), expected);
        });

        it('returns rows strictly after a position that is not a row', async () => {
          const records = [1, 2, 3].map((s) => strategy(userId, { createdAt: at(s) }));
          for (const r of records) await store.strategies.insert(r);
          const between = await store.strategies.list(userId, { limit: 50, after: { createdAt: at(2.5), id: 'str_' } });
          expect(between.map((r) => r.createdAt)).toEqual([at(2), at(1)]);
          const sameTime = await store.strategies.list(userId, { limit: 50, after: { createdAt: at(2), id: `${records[1]!.id}~` } });
          expect(sameTime.map((r) => r.id)).toEqual([records[1]!.id, records[0]!.id]);
          expect(await store.strategies.list(userId, { limit: 50, after: { createdAt: at(0), id: 'str_zzz' } })).toEqual([]);
        });

        it("is empty for a user with no strategies, and never shows another user's", async () => {
          await insertStrategy(otherUserId);
          expect(await store.strategies.list(userId, { limit: 50 })).toEqual([]);
          expect(await store.strategies.list(otherUserId, { limit: 50 })).toHaveLength(1);
        });
      });

      describe('update', () => {
        it('changes only the given fields', async () => {
          const record = await insertStrategy(userId, { name: 'Before', description: 'Desc', createdAt: at(1), updatedAt: at(1) });
          expect(await store.strategies.update(userId, record.id, { name: 'After' })).toBe(true);
          expect(await store.strategies.findById(userId, record.id)).toEqual({ ...record, name: 'After' });
          expect(await store.strategies.update(userId, record.id, { description: '', version: 2, updatedAt: at(9) })).toBe(true);
          expect(await store.strategies.findById(userId, record.id)).toEqual({
            ...record,
            name: 'After',
            description: '',
            version: 2,
            updatedAt: at(9),
          });
        });

        it('treats an undefined field as not given, and an empty patch as a no-op on an existing strategy', async () => {
          const record = await insertStrategy(userId, { name: 'Kept', description: 'Kept too' });
          expect(await store.strategies.update(userId, record.id, { name: undefined, description: 'New' })).toBe(true);
          expect(await store.strategies.findById(userId, record.id)).toEqual({ ...record, description: 'New' });
          expect(await store.strategies.update(userId, record.id, {})).toBe(true);
          expect(await store.strategies.findById(userId, record.id)).toEqual({ ...record, description: 'New' });
        });

        it('changes no other strategy', async () => {
          const a = await insertStrategy(userId, { name: 'A' });
          const b = await insertStrategy(userId, { name: 'B' });
          expect(await store.strategies.update(userId, a.id, { name: 'A2' })).toBe(true);
          expect(await store.strategies.findById(userId, b.id)).toEqual(b);
        });

        it('returns false for a missing strategy', async () => {
          expect(await store.strategies.update(userId, uid('str'), { name: 'x' })).toBe(false);
          expect(await store.strategies.update(userId, uid('str'), {})).toBe(false);
        });

        it("returns false for another user's strategy and leaves it unchanged", async () => {
          const record = await insertStrategy(otherUserId);
          expect(await store.strategies.update(userId, record.id, { name: 'Hijacked', version: 99 })).toBe(false);
          expect(await store.strategies.update(userId, record.id, {})).toBe(false);
          expect(await store.strategies.findById(otherUserId, record.id)).toEqual(record);
        });
      });

      describe('delete', () => {
        it('deletes the strategy and all its versions', async () => {
          const record = await insertStrategy(userId, { version: 3 });
          expect(await store.strategies.listVersions(userId, record.id)).toHaveLength(3);
          expect(await store.strategies.delete(userId, record.id)).toBe(true);
          expect(await store.strategies.findById(userId, record.id)).toBeNull();
          expect(await store.strategies.list(userId, { limit: 50 })).toEqual([]);
          expect(await store.strategies.listVersions(userId, record.id)).toEqual([]);
          expect(await store.strategies.getVersion(userId, record.id, 1)).toBeNull();
          // The versions are really gone: the same (strategyId, version) can be written again.
          await store.strategies.insert(record);
          await store.strategies.insertVersion(version(record, 1, { source: 'reborn' }));
          expect((await store.strategies.getVersion(userId, record.id, 1))?.source).toBe('reborn');
          expect(await store.strategies.listVersions(userId, record.id)).toHaveLength(1);
        });

        it('deletes no other strategy or version', async () => {
          const a = await insertStrategy(userId, { version: 2 });
          const b = await insertStrategy(userId, { version: 2 });
          expect(await store.strategies.delete(userId, a.id)).toBe(true);
          expect(await store.strategies.findById(userId, b.id)).toEqual(b);
          expect((await store.strategies.listVersions(userId, b.id)).map((v) => v.version)).toEqual([2, 1]);
        });

        it('returns false for a missing or already deleted strategy', async () => {
          expect(await store.strategies.delete(userId, uid('str'))).toBe(false);
          const record = await insertStrategy(userId);
          expect(await store.strategies.delete(userId, record.id)).toBe(true);
          expect(await store.strategies.delete(userId, record.id)).toBe(false);
        });

        it("returns false for another user's strategy and keeps it with its versions", async () => {
          const record = await insertStrategy(otherUserId, { version: 2 });
          expect(await store.strategies.delete(userId, record.id)).toBe(false);
          expect(await store.strategies.findById(otherUserId, record.id)).toEqual(record);
          expect(await store.strategies.listVersions(otherUserId, record.id)).toHaveLength(2);
        });
      });

      describe('versions', () => {
        it('getVersion returns one version with its source, as stored', async () => {
          const record = await insertStrategy(userId);
          const source = `// ünïcödé 🚀 "quoted" 'single' \\ back\n${'x'.repeat(100)}\r\n\ttabbed`;
          const v2 = version(record, 2, { source, sizeBytes: Buffer.byteLength(source), createdAt: at(77) });
          await store.strategies.insertVersion(v2);
          expect(await store.strategies.getVersion(userId, record.id, 2)).toEqual(v2);
          expect(await store.strategies.getVersion(userId, record.id, 1)).toEqual(version(record, 1));
        });

        it('stores a source of 512,000 bytes unchanged', async () => {
          const record = await insertStrategy(userId);
          const source = 'é'.repeat(256_000);
          await store.strategies.insertVersion(version(record, 2, { source, sizeBytes: 512_000 }));
          const found = await store.strategies.getVersion(userId, record.id, 2);
          expect(found?.source.length).toBe(256_000);
          expect(found?.source === source).toBe(true);
        });

        it('getVersion returns null for a missing version or strategy', async () => {
          const record = await insertStrategy(userId);
          expect(await store.strategies.getVersion(userId, record.id, 2)).toBeNull();
          expect(await store.strategies.getVersion(userId, record.id, 0)).toBeNull();
          expect(await store.strategies.getVersion(userId, uid('str'), 1)).toBeNull();
        });

        it("getVersion returns null for another user's strategy", async () => {
          const record = await insertStrategy(otherUserId);
          expect(await store.strategies.getVersion(otherUserId, record.id, 1)).not.toBeNull();
          expect(await store.strategies.getVersion(userId, record.id, 1)).toBeNull();
        });

        it('insertVersion throws on a duplicate (strategyId, version) and keeps the first', async () => {
          const record = await insertStrategy(userId);
          const first = version(record, 1);
          await expect(store.strategies.insertVersion({ ...first, source: 'second', sourceSha256: 'f'.repeat(64) })).rejects.toThrow();
          expect(await store.strategies.getVersion(userId, record.id, 1)).toEqual(first);
          expect(await store.strategies.listVersions(userId, record.id)).toEqual([withoutSource(first)]);
        });

        it('allows the same version number on different strategies', async () => {
          const a = await insertStrategy(userId);
          const b = await insertStrategy(userId);
          expect((await store.strategies.getVersion(userId, a.id, 1))?.strategyId).toBe(a.id);
          expect((await store.strategies.getVersion(userId, b.id, 1))?.strategyId).toBe(b.id);
        });

        it('listVersions lists newest version first, without sources', async () => {
          const record = strategy(userId, { version: 3 });
          await store.strategies.insert(record);
          const versions = [2, 3, 1].map((n) => version(record, n, { createdAt: at(10 - n) }));
          for (const v of versions) await store.strategies.insertVersion(v);
          const listed = await store.strategies.listVersions(userId, record.id);
          expect(listed.map((v) => v.version)).toEqual([3, 2, 1]);
          expect(listed).toEqual([3, 2, 1].map((n) => withoutSource(versions.find((v) => v.version === n)!)));
          for (const v of listed) expect(v).not.toHaveProperty('source');
        });

        it('listVersions lists only the versions of that strategy', async () => {
          const a = await insertStrategy(userId, { version: 2 });
          await insertStrategy(userId, { version: 3 });
          expect((await store.strategies.listVersions(userId, a.id)).map((v) => [v.strategyId, v.version])).toEqual([
            [a.id, 2],
            [a.id, 1],
          ]);
        });

        it("listVersions is empty for a missing strategy and for another user's", async () => {
          expect(await store.strategies.listVersions(userId, uid('str'))).toEqual([]);
          const record = await insertStrategy(otherUserId, { version: 2 });
          expect(await store.strategies.listVersions(otherUserId, record.id)).toHaveLength(2);
          expect(await store.strategies.listVersions(userId, record.id)).toEqual([]);
        });
      });
    });

    describe('deployments', () => {
      describe('insert and findById', () => {
        it('finds a running deployment, equal to what was stored', async () => {
          const record = deployment(userId);
          await store.deployments.insert(record);
          expect(await store.deployments.findById(userId, record.id)).toEqual(record);
        });

        it('round-trips arrays, maps, the error object and null timestamps', async () => {
          const failed = deployment(userId, {
            symbols: ['BTC/USDT:USDT', 'ETH/USDT', 'SOL/USDT:USDT'],
            params: { fast: '12', 'with space': 'a "quoted" value', ünï: '🚀', empty: '' },
            status: 'failed',
            error: { code: 'EXCHANGE_ERROR', message: 'Insufficient margin: "BTC" \n second line' },
            startedAt: null,
            stoppedAt: at(5),
          });
          const empty = deployment(userId, { symbols: [], params: {}, status: 'starting', startedAt: null, stoppedAt: null });
          for (const r of [failed, empty]) await store.deployments.insert(r);
          expect(await store.deployments.findById(userId, failed.id)).toEqual(failed);
          expect(await store.deployments.findById(userId, empty.id)).toEqual(empty);
          const listed = await store.deployments.list(userId, { limit: 50 });
          expect(listed).toHaveLength(2);
          expect(listed).toContainEqual(failed);
          expect(listed).toContainEqual(empty);
          expect(Object.keys((await store.deployments.findById(userId, failed.id))!.params).sort()).toEqual(Object.keys(failed.params).sort());
        });

        it('keeps symbol order and is not changed by mutating the inserted object', async () => {
          const record = deployment(userId, { symbols: ['Z/USDT', 'A/USDT', 'M/USDT'] });
          const expected = structuredClone(record);
          await store.deployments.insert(record);
          record.symbols.push('MUTATED/USDT');
          record.params.fast = 'mutated';
          expect(await store.deployments.findById(userId, record.id)).toEqual(expected);
        });

        it('returns null for a missing deployment', async () => {
          expect(await store.deployments.findById(userId, uid('dep'))).toBeNull();
        });

        it("returns null for another user's deployment", async () => {
          const record = deployment(otherUserId);
          await store.deployments.insert(record);
          expect(await store.deployments.findById(otherUserId, record.id)).toEqual(record);
          expect(await store.deployments.findById(userId, record.id)).toBeNull();
        });

        it('throws when the id exists, and keeps the first', async () => {
          const record = deployment(userId);
          await store.deployments.insert(record);
          await expect(store.deployments.insert({ ...record, status: 'stopped' })).rejects.toThrow();
          await expect(store.deployments.insert({ ...record, userId: otherUserId })).rejects.toThrow();
          expect(await store.deployments.findById(userId, record.id)).toEqual(record);
        });
      });

      describe('list', () => {
        it("lists only the user's deployments, newest first, ties by id descending", async () => {
          const tied = tieIds('dep').map((id) => deployment(userId, { id, createdAt: at(3) }));
          const others = [5, 1, 4, 2].map((s) => deployment(userId, { createdAt: at(s) }));
          for (const r of [...tied, ...others]) await store.deployments.insert(r);
          await store.deployments.insert(deployment(otherUserId, { createdAt: at(9) }));
          const listed = await store.deployments.list(userId, { limit: 50 });
          expect(listed).toEqual([...tied, ...others].sort(byNewestFirst));
          expect(listed.map((r) => r.createdAt)).toEqual([at(5), at(4), ...tied.map(() => at(3)), at(2), at(1)]);
        });

        it('pages with `after` and `limit` through every row exactly once', async () => {
          const tied = tieIds('dep').map((id) => deployment(userId, { id, createdAt: at(3) }));
          const others = [5, 1].map((s) => deployment(userId, { createdAt: at(s) }));
          for (const r of [...tied, ...others]) await store.deployments.insert(r);
          const expected = [...tied, ...others].sort(byNewestFirst);
          expect(await store.deployments.list(userId, { limit: 3 })).toEqual(expected.slice(0, 3));
          for (const limit of [1, 3, 5]) {
            const pages = await readAllPages((p) => store.deployments.list(userId, p), limit);
            expect(pages.flat()).toEqual(expected);
          }
          const last = expected[4]!;
          expect(await store.deployments.list(userId, { limit: 2, after: { createdAt: last.createdAt, id: last.id } })).toEqual(expected.slice(5, 7));
        });

        it("is empty for a user with no deployments, and never shows another user's", async () => {
          await store.deployments.insert(deployment(otherUserId));
          expect(await store.deployments.list(userId, { limit: 50 })).toEqual([]);
          expect(await store.deployments.list(otherUserId, { limit: 50 })).toHaveLength(1);
        });
      });

      describe('countActive', () => {
        const statuses: DeploymentStatus[] = ['starting', 'running', 'stopping', 'stopped', 'failed'];

        it('counts deployments that are starting, running or stopping', async () => {
          for (const status of statuses) await store.deployments.insert(deployment(userId, { status }));
          expect(await store.deployments.countActive(userId)).toBe(3);
          expect(await store.deployments.countActive(userId, {})).toBe(3);
        });

        it('counts each active status, and neither stopped nor failed', async () => {
          for (const status of statuses) {
            const owner = uid('usr');
            await store.deployments.insert(deployment(owner, { status }));
            await store.deployments.insert(deployment(owner, { status }));
            expect(await store.deployments.countActive(owner)).toBe(status === 'stopped' || status === 'failed' ? 0 : 2);
          }
        });

        it('filters by strategy, by credential, and by both', async () => {
          const [s1, s2] = [uid('str'), uid('str')];
          const [c1, c2] = [uid('cred'), uid('cred')];
          const rows: [string, string, DeploymentStatus][] = [
            [s1, c1, 'running'],
            [s1, c1, 'starting'],
            [s1, c2, 'stopping'],
            [s1, c2, 'stopped'],
            [s2, c1, 'running'],
            [s2, c2, 'failed'],
          ];
          for (const [strategyId, credentialId, status] of rows) {
            await store.deployments.insert(deployment(userId, { strategyId, credentialId, status }));
          }
          expect(await store.deployments.countActive(userId)).toBe(4);
          expect(await store.deployments.countActive(userId, { strategyId: s1 })).toBe(3);
          expect(await store.deployments.countActive(userId, { strategyId: s2 })).toBe(1);
          expect(await store.deployments.countActive(userId, { credentialId: c1 })).toBe(3);
          expect(await store.deployments.countActive(userId, { credentialId: c2 })).toBe(1);
          expect(await store.deployments.countActive(userId, { strategyId: s1, credentialId: c2 })).toBe(1);
          expect(await store.deployments.countActive(userId, { strategyId: s2, credentialId: c2 })).toBe(0);
          expect(await store.deployments.countActive(userId, { strategyId: uid('str') })).toBe(0);
          expect(await store.deployments.countActive(userId, { credentialId: uid('cred') })).toBe(0);
        });

        it('listActive lists what countActive counts, newest first, with the same filters', async () => {
          const credentialId = uid('cred');
          const older = deployment(userId, { credentialId, status: 'running', createdAt: at(1) });
          const newer = deployment(userId, { credentialId, status: 'stopping', createdAt: at(2) });
          for (const d of [
            older,
            newer,
            deployment(userId, { credentialId, status: 'stopped' }),
            deployment(userId, { status: 'running' }),
            deployment(otherUserId, { credentialId, status: 'running' }),
          ]) {
            await store.deployments.insert(d);
          }
          expect(await store.deployments.listActive(userId, { credentialId })).toEqual([newer, older]);
          expect(await store.deployments.countActive(userId, { credentialId })).toBe(2);
          expect(await store.deployments.listActive(userId, { credentialId: uid('cred') })).toEqual([]);
        });

        it("is 0 for a user with none, and never counts another user's", async () => {
          const strategyId = uid('str');
          const credentialId = uid('cred');
          await store.deployments.insert(deployment(otherUserId, { strategyId, credentialId, status: 'running' }));
          expect(await store.deployments.countActive(otherUserId)).toBe(1);
          expect(await store.deployments.countActive(userId)).toBe(0);
          expect(await store.deployments.countActive(userId, { strategyId })).toBe(0);
          expect(await store.deployments.countActive(userId, { credentialId })).toBe(0);
          expect(await store.deployments.countActive(userId, { strategyId, credentialId })).toBe(0);
        });
      });
    });

    describe('backtests', () => {
      /** Every field away from the fixture's defaults, with values that float4 or a lossy codec would change. */
      const finished = (owner: string, overrides: Partial<BacktestRecord> = {}) =>
        backtest(owner, {
          strategyVersion: 17,
          status: 'failed',
          progress: 0.1 + 0.2,
          processedBars: 123_456,
          totalBars: 2_000_000,
          symbols: ['SOL/USDT:USDT', 'ünï/cödé 🚀', 'BTC/USDT:USDT'],
          startDate: '2024-02-29',
          endDate: '2025-03-01',
          timeframe: '15m',
          marketType: 'SPOT',
          fees: { maker: -0.0001, taker: 0.00075 },
          leverage: 12.5,
          slippage: 0.0003,
          initialCapital: 1_234_567.891_234_5,
          params: { fast: '12', 'with "quotes"': 'and \\ back', empty: '' },
          dataSource: 'ccxt:binance',
          funding: false,
          fundingSource: 'csv,ccxt:binance',
          computeMs: 1234.5678,
          attempts: 2,
          createdAt: at(10),
          startedAt: at(11),
          finishedAt: at(12),
          error: { code: 'STRATEGY_ERROR', message: 'TypeError: x is not a function ✗ "quoted"\n  at onCandle (line 3)' },
          ...overrides,
        });

      describe('insert and findById', () => {
        it('finds an inserted backtest, equal to what was stored', async () => {
          const queued = backtest(userId);
          const done = finished(userId);
          const bare = backtest(userId, { symbols: ['BTC/USDT'], params: {}, fees: { maker: 0, taker: 0 } });
          for (const r of [queued, done, bare]) await store.backtests.insert(r);
          expect(await store.backtests.findById(userId, queued.id)).toEqual(queued);
          expect(await store.backtests.findById(userId, done.id)).toEqual(done);
          expect(await store.backtests.findById(userId, bare.id)).toEqual(bare);
        });

        it("returns null for a missing backtest and for another user's", async () => {
          const record = backtest(otherUserId);
          await store.backtests.insert(record);
          expect(await store.backtests.findById(otherUserId, record.id)).toEqual(record);
          expect(await store.backtests.findById(userId, record.id)).toBeNull();
          expect(await store.backtests.findById(userId, uid('bt'))).toBeNull();
        });

        it('throws when the id exists, even for another user, and keeps the first', async () => {
          const record = backtest(userId, { timeframe: '1h' });
          await store.backtests.insert(record);
          await expect(store.backtests.insert({ ...record, timeframe: '4h' })).rejects.toThrow();
          await expect(store.backtests.insert({ ...record, userId: otherUserId })).rejects.toThrow();
          expect(await store.backtests.findById(userId, record.id)).toEqual(record);
          expect(await store.backtests.findById(otherUserId, record.id)).toBeNull();
        });

        it('is not changed by mutating the inserted or returned object', async () => {
          const record = finished(userId);
          await store.backtests.insert(record);
          const expected = structuredClone(record);
          record.symbols.push('MUTATED');
          record.fees.maker = 1;
          record.params.fast = 'mutated';
          record.error!.message = 'mutated';
          const found = await store.backtests.findById(userId, record.id);
          expect(found).toEqual(expected);
          found!.symbols.push('MUTATED');
          found!.params.fast = 'mutated';
          found!.error!.code = 'mutated';
          expect(await store.backtests.findById(userId, record.id)).toEqual(expected);
        });
      });

      describe('list', () => {
        it("lists only the user's backtests, newest first", async () => {
          const records = [3, 1, 4, 0, 2].map((s) => backtest(userId, { createdAt: at(s) }));
          for (const r of records) await store.backtests.insert(r);
          await store.backtests.insert(backtest(otherUserId, { createdAt: at(2) }));
          await store.backtests.insert(backtest(otherUserId, { createdAt: at(9) }));
          const listed = await store.backtests.list(userId, { limit: 50 });
          expect(listed.map((r) => r.createdAt)).toEqual([at(4), at(3), at(2), at(1), at(0)]);
          expect(listed).toEqual([...records].sort(byNewestFirst));
          expect(await store.backtests.list(uid('usr'), { limit: 50 })).toEqual([]);
        });

        it('breaks ties on createdAt by id, descending, and returns at most `limit` rows', async () => {
          const ids = tieIds('bt');
          for (const id of ids) await store.backtests.insert(backtest(userId, { id, createdAt: at(5) }));
          await store.backtests.insert(backtest(userId, { createdAt: at(6) }));
          await store.backtests.insert(backtest(userId, { createdAt: at(4) }));
          const listed = await store.backtests.list(userId, { limit: 50 });
          expect(listed).toHaveLength(8);
          expect(listed.slice(1, 7).map((r) => r.id)).toEqual([...ids].sort().reverse());
          expect(listed[0]!.createdAt).toBe(at(6));
          expect(listed[7]!.createdAt).toBe(at(4));
          expect(await store.backtests.list(userId, { limit: 3 })).toEqual(listed.slice(0, 3));
          expect(await store.backtests.list(userId, { limit: 1 })).toEqual(listed.slice(0, 1));
        });

        it('pages with `after` through every row exactly once, across ties', async () => {
          const tied = tieIds('bt').map((id) => backtest(userId, { id, createdAt: at(7) }));
          const others = [9, 8, 6, 5].map((s) => backtest(userId, { createdAt: at(s) }));
          for (const r of [...tied, ...others]) await store.backtests.insert(r);
          const expected = [...tied, ...others].sort(byNewestFirst);
          await expectPagedOnce((p) => store.backtests.list(userId, p), expected);
          const between = await store.backtests.list(userId, { limit: 50, after: { createdAt: at(6.5), id: 'bt_' } });
          expect(between.map((r) => r.createdAt)).toEqual([at(6), at(5)]);
        });

        it('filters by strategy, by status, and by both (both must match)', async () => {
          const [s1, s2] = [uid('str'), uid('str')];
          const rows: [string, BacktestStatus][] = [
            [s1, 'queued'],
            [s1, 'running'],
            [s1, 'completed'],
            [s1, 'completed'],
            [s2, 'completed'],
            [s2, 'failed'],
            [s2, 'cancelled'],
          ];
          const records = rows.map(([strategyId, status], i) => backtest(userId, { strategyId, status, createdAt: at(i) }));
          for (const r of records) await store.backtests.insert(r);
          // Another user's backtests of the same strategy ids and statuses never show.
          for (const [strategyId, status] of rows) await store.backtests.insert(backtest(otherUserId, { strategyId, status, createdAt: at(3) }));
          const matching = (pred: (r: BacktestRecord) => boolean) => records.filter(pred).sort(byNewestFirst);

          expect(await store.backtests.list(userId, { limit: 50 }, {})).toEqual(matching(() => true));
          expect(await store.backtests.list(userId, { limit: 50 }, { strategyId: s1 })).toEqual(matching((r) => r.strategyId === s1));
          expect(await store.backtests.list(userId, { limit: 50 }, { strategyId: s2 })).toEqual(matching((r) => r.strategyId === s2));
          expect(await store.backtests.list(userId, { limit: 50 }, { status: 'completed' })).toEqual(matching((r) => r.status === 'completed'));
          expect(await store.backtests.list(userId, { limit: 50 }, { status: 'queued' })).toEqual(matching((r) => r.status === 'queued'));
          expect(await store.backtests.list(userId, { limit: 50 }, { strategyId: s1, status: 'completed' })).toEqual(
            matching((r) => r.strategyId === s1 && r.status === 'completed'),
          );
          expect(await store.backtests.list(userId, { limit: 50 }, { strategyId: s2, status: 'completed' })).toEqual(
            matching((r) => r.strategyId === s2 && r.status === 'completed'),
          );
          expect(await store.backtests.list(userId, { limit: 50 }, { strategyId: s2, status: 'queued' })).toEqual([]);
          expect(await store.backtests.list(userId, { limit: 50 }, { strategyId: uid('str') })).toEqual([]);
          expect(await store.backtests.list(userId, { limit: 50 }, { strategyId: s1, status: undefined })).toEqual(matching((r) => r.strategyId === s1));
          expect(await store.backtests.list(uid('usr'), { limit: 50 }, { strategyId: s1 })).toEqual([]);
        });

        it('pages through a filtered list', async () => {
          const strategyId = uid('str');
          const tied = tieIds('bt').map((id, i) => backtest(userId, { id, strategyId, status: i % 2 ? 'completed' : 'failed', createdAt: at(3) }));
          const others = [5, 4, 2, 1].map((s, i) => backtest(userId, { strategyId, status: i % 2 ? 'completed' : 'failed', createdAt: at(s) }));
          const noise = [6, 3, 0].map((s) => backtest(userId, { status: 'completed', createdAt: at(s) }));
          for (const r of [...tied, ...others, ...noise]) await store.backtests.insert(r);
          const all = [...tied, ...others];
          for (const limit of [1, 2, 3]) {
            const byStrategy = await readAllPages((p) => store.backtests.list(userId, p, { strategyId }), limit);
            expect(byStrategy.flat()).toEqual([...all].sort(byNewestFirst));
            const both = await readAllPages((p) => store.backtests.list(userId, p, { strategyId, status: 'completed' }), limit);
            expect(both.flat()).toEqual(all.filter((r) => r.status === 'completed').sort(byNewestFirst));
          }
        });
      });

      describe('transition', () => {
        it('applies the patch when the backtest is in a `from` status, and returns the updated record', async () => {
          const record = backtest(userId);
          await store.backtests.insert(record);
          const updated = await store.backtests.transition(record.id, ['queued'], { status: 'running', startedAt: at(30), attempts: 1 });
          expect(updated).toEqual({ ...record, status: 'running', startedAt: at(30), attempts: 1 });
          expect(await store.backtests.findById(userId, record.id)).toEqual(updated);
          // Any of several `from` statuses will do.
          const done = await store.backtests.transition(record.id, ['queued', 'running'], { status: 'completed', progress: 1, finishedAt: at(40) });
          expect(done).toEqual({ ...record, status: 'completed', startedAt: at(30), attempts: 1, progress: 1, finishedAt: at(40) });
          expect(await store.backtests.findById(userId, record.id)).toEqual(done);
        });

        it('returns null and changes nothing from a wrong status', async () => {
          const record = finished(userId, { status: 'completed' });
          await store.backtests.insert(record);
          const everything: BacktestPatch = { status: 'running', progress: 0.5, attempts: 9, error: null, startedAt: null, dataSource: 'csv' };
          expect(await store.backtests.transition(record.id, ['queued'], everything)).toBeNull();
          expect(await store.backtests.transition(record.id, ['queued', 'running', 'failed', 'cancelled'], everything)).toBeNull();
          expect(await store.backtests.transition(record.id, [], everything)).toBeNull();
          expect(await store.backtests.transition(record.id, ['queued'], {})).toBeNull();
          expect(await store.backtests.findById(userId, record.id)).toEqual(record);
        });

        it('returns null for a missing backtest', async () => {
          expect(await store.backtests.transition(uid('bt'), ['queued'], { status: 'running' })).toBeNull();
          expect(await store.backtests.transition(uid('bt'), ['queued'], {})).toBeNull();
        });

        it('is not scoped to a user, and changes no other backtest', async () => {
          const mine = backtest(userId);
          const theirs = backtest(otherUserId);
          await store.backtests.insert(mine);
          await store.backtests.insert(theirs);
          const updated = await store.backtests.transition(theirs.id, ['queued'], { status: 'cancelled', finishedAt: at(5) });
          expect(updated).toEqual({ ...theirs, status: 'cancelled', finishedAt: at(5) });
          expect(await store.backtests.findById(otherUserId, theirs.id)).toEqual(updated);
          expect(await store.backtests.findById(userId, mine.id)).toEqual(mine);
        });

        it('round-trips a patch of every field, including the error object, and back to nulls', async () => {
          const record = backtest(userId, { status: 'running', startedAt: at(1), attempts: 1 });
          await store.backtests.insert(record);
          const failed: Required<BacktestPatch> = {
            status: 'failed',
            progress: 0.437_512_345_678_9,
            processedBars: 700_001,
            totalBars: 1_600_000,
            dataSource: 'ccxt:binance',
            fundingSource: 'synthetic,ünï 🚀',
            computeMs: 987.654_321,
            attempts: 2,
            startedAt: at(2),
            finishedAt: at(3),
            error: { code: 'STRATEGY_ERROR', message: 'RangeError: ünïcödé 🚀 "quoted" \\ back\nline two' },
          };
          const afterFail = await store.backtests.transition(record.id, ['running'], failed);
          expect(afterFail).toEqual({ ...record, ...failed });
          expect(await store.backtests.findById(userId, record.id)).toEqual({ ...record, ...failed });

          const requeued: Required<BacktestPatch> = {
            status: 'queued',
            progress: 0,
            processedBars: 0,
            totalBars: 0,
            dataSource: null,
            fundingSource: null,
            computeMs: 0,
            attempts: 3,
            startedAt: null,
            finishedAt: null,
            error: null,
          };
          const afterRequeue = await store.backtests.transition(record.id, ['failed'], requeued);
          expect(afterRequeue).toEqual({ ...record, ...requeued });
          expect(await store.backtests.findById(userId, record.id)).toEqual({ ...record, ...requeued });
        });

        it('changes only the given fields; an undefined field is not given; an empty patch returns the record', async () => {
          const record = finished(userId, { status: 'running', finishedAt: null, error: null });
          await store.backtests.insert(record);
          const progressed = await store.backtests.transition(record.id, ['running'], { progress: 0.75, processedBars: 1500, totalBars: undefined });
          expect(progressed).toEqual({ ...record, progress: 0.75, processedBars: 1500 });
          expect(await store.backtests.transition(record.id, ['running'], {})).toEqual(progressed);
          expect(await store.backtests.transition(record.id, ['running'], { status: undefined, error: undefined })).toEqual(progressed);
          expect(await store.backtests.findById(userId, record.id)).toEqual(progressed);
        });

        it('lets exactly one of 10 concurrent transitions from the same status win', async () => {
          const record = backtest(userId);
          await store.backtests.insert(record);
          const results = await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              store.backtests.transition(record.id, ['queued'], { status: 'running', startedAt: at(100 + i), attempts: i + 1 }),
            ),
          );
          const winners = results.filter((r) => r !== null);
          expect(winners).toHaveLength(1);
          const winner = winners[0]!;
          const i = results.indexOf(winner);
          expect(winner).toEqual({ ...record, status: 'running', startedAt: at(100 + i), attempts: i + 1 });
          expect(await store.backtests.findById(userId, record.id)).toEqual(winner);
        });

        it('lets exactly one of 10 concurrent transactions transitioning from the same status win', async () => {
          const record = backtest(userId);
          await store.backtests.insert(record);
          const results = await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              store.transaction(async (tx) => {
                const won = await tx.backtests.transition(record.id, ['queued'], { status: 'running', attempts: i + 1 });
                if (won) expect(await tx.backtests.findById(userId, record.id)).toEqual(won);
                return won;
              }),
            ),
          );
          const winners = results.filter((r) => r !== null);
          expect(winners).toHaveLength(1);
          expect(await store.backtests.findById(userId, record.id)).toEqual(winners[0]);
        });

        it('lets exactly one win of a transition in an open transaction and a concurrent one outside', async () => {
          const record = backtest(userId);
          await store.backtests.insert(record);
          const inside = gate();
          const release = gate();
          const inTx = store.transaction(async (tx) => {
            const won = await tx.backtests.transition(record.id, ['queued'], { status: 'running', attempts: 1 });
            inside.open();
            await release.promise;
            return won;
          });
          await inside.promise;
          // May wait for the transaction (SQLite, PostgreSQL's row lock) or not (memory).
          const outside = store.backtests.transition(record.id, ['queued'], { status: 'cancelled', finishedAt: at(9) });
          release.open();
          const [a, b] = await Promise.allSettled([inTx, outside]);
          const insideWon = a.status === 'fulfilled' && a.value !== null;
          const outsideWon = b.status === 'fulfilled' && b.value !== null;
          expect(b.status).toBe('fulfilled');
          expect([insideWon, outsideWon].filter(Boolean)).toHaveLength(1);
          expect(await store.backtests.findById(userId, record.id)).toEqual(
            insideWon ? { ...record, status: 'running', attempts: 1 } : { ...record, status: 'cancelled', finishedAt: at(9) },
          );
        });

        it('is undone when its transaction rolls back', async () => {
          const record = backtest(userId);
          await store.backtests.insert(record);
          const error = new Error('rollback');
          await expect(
            store.transaction(async (tx) => {
              expect(await tx.backtests.transition(record.id, ['queued'], { status: 'running', attempts: 1 })).not.toBeNull();
              expect(await tx.backtests.transition(record.id, ['queued'], { status: 'running', attempts: 2 })).toBeNull();
              throw error;
            }),
          ).rejects.toBe(error);
          expect(await store.backtests.findById(userId, record.id)).toEqual(record);
          expect(await store.backtests.transition(record.id, ['queued'], { status: 'running', attempts: 3 })).toEqual({
            ...record,
            status: 'running',
            attempts: 3,
          });
        });
      });

      describe('listByStatus', () => {
        it('lists backtests in the given statuses, oldest first, across users, at most `limit`', async () => {
          // 1990 timestamps: older than every other test's backtests, which this list also sees.
          const rows: [string, BacktestStatus, number][] = [
            [userId, 'running', 40],
            [otherUserId, 'queued', 10],
            [userId, 'completed', 5],
            [otherUserId, 'running', 30],
            [userId, 'queued', 20],
            [otherUserId, 'failed', 1],
            [userId, 'cancelled', 2],
            [userId, 'queued', 50],
          ];
          const records = rows.map(([owner, status, s]) => backtest(owner, { status, createdAt: early(s) }));
          for (const r of records) await store.backtests.insert(r);
          const mine = new Set(records.map((r) => r.id));
          const oldestFirst = (statuses: BacktestStatus[]) =>
            records.filter((r) => statuses.includes(r.status)).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));

          const active = await store.backtests.listByStatus(['queued', 'running'], 1000);
          expect(active.filter((r) => mine.has(r.id))).toEqual(oldestFirst(['queued', 'running']));
          expect(active.every((r) => r.status === 'queued' || r.status === 'running')).toBe(true);
          // Oldest first over the whole list, not only this test's rows.
          expect(active.map((r) => r.createdAt)).toEqual(active.map((r) => r.createdAt).sort());

          expect(await store.backtests.listByStatus(['queued', 'running'], 3)).toEqual(oldestFirst(['queued', 'running']).slice(0, 3));
          expect(await store.backtests.listByStatus(['running', 'queued'], 1)).toEqual(oldestFirst(['queued', 'running']).slice(0, 1));
          const queued = await store.backtests.listByStatus(['queued'], 1000);
          expect(queued.filter((r) => mine.has(r.id))).toEqual(oldestFirst(['queued']));
          expect(queued.every((r) => r.status === 'queued')).toBe(true);
          const ended = await store.backtests.listByStatus(['completed', 'failed', 'cancelled'], 2);
          expect(ended).toEqual(oldestFirst(['completed', 'failed', 'cancelled']).slice(0, 2));
          expect(await store.backtests.listByStatus([], 10)).toEqual([]);
        });
      });

      describe('countCreatedSince', () => {
        it("counts the user's backtests created at or after `since`, and never another user's", async () => {
          for (const s of [1, 2, 2, 3]) await store.backtests.insert(backtest(userId, { createdAt: at(s) }));
          for (const s of [2, 3, 4]) await store.backtests.insert(backtest(otherUserId, { createdAt: at(s) }));
          expect(await store.backtests.countCreatedSince(userId, at(0))).toBe(4);
          expect(await store.backtests.countCreatedSince(userId, at(1))).toBe(4);
          expect(await store.backtests.countCreatedSince(userId, at(1.5))).toBe(3);
          expect(await store.backtests.countCreatedSince(userId, at(2))).toBe(3);
          expect(await store.backtests.countCreatedSince(userId, at(3))).toBe(1);
          expect(await store.backtests.countCreatedSince(userId, at(3.001))).toBe(0);
          expect(await store.backtests.countCreatedSince(otherUserId, at(3))).toBe(2);
          expect(await store.backtests.countCreatedSince(uid('usr'), at(0))).toBe(0);
        });
      });

      describe('results', () => {
        const result = (backtestId: string, scale = 1): BacktestResultRecord => ({
          backtestId,
          equityCurve: [
            { time: at(0), equity: 10_000 * scale },
            { time: at(60), equity: 10_012.345_678_901_234 * scale },
            { time: at(120), equity: 9_999.999_999_999_998 * scale },
          ],
          trades: [
            {
              symbol: 'BTC/USDT:USDT',
              side: 'long',
              entryTime: at(0),
              entryPrice: 42_000.5,
              exitTime: at(60),
              exitPrice: 42_100.25,
              quantity: 0.001,
              pnl: 0.099_75 * scale,
              fees: 0.0421,
              exitReason: 'signal',
            },
            {
              symbol: 'ünï/cödé 🚀',
              side: 'short',
              entryTime: at(60),
              entryPrice: 1e-8,
              exitTime: at(120),
              exitPrice: 1e21,
              quantity: 123_456_789,
              pnl: -0.1,
              fees: 0,
              tags: ['a', '"quoted"', 'back \\ slash'],
              meta: { nested: { deep: [1, null, 'x', true, { empty: {} }] } },
            },
          ],
          metrics: {
            totalReturn: 0.1 + 0.2,
            cagr: null,
            maxDrawdown: -0.125,
            sharpe: 1.5e-10 * scale,
            tradeCount: 2,
            feesPaid: 0.0421,
            perSymbol: {
              'BTC/USDT:USDT': { totalReturn: 1, winRate: 1, note: 'line\nbreak\ttab' },
              'ETH/USDT:USDT': {},
            },
            empty: [],
          },
          tradeCount: 2,
        });

        it('getResult and listTrades return the saved results, nested JSON as saved', async () => {
          const record = backtest(userId, { status: 'completed' });
          await store.backtests.insert(record);
          expect(await readResult(store, userId, record.id)).toBeNull();
          await store.backtests.saveResult(result(record.id));
          expect(await readResult(store, userId, record.id)).toEqual(result(record.id));
          // The backtest itself is unchanged.
          expect(await store.backtests.findById(userId, record.id)).toEqual(record);
        });

        it('saveResult replaces earlier results and their trades', async () => {
          const record = backtest(userId, { status: 'completed' });
          await store.backtests.insert(record);
          await store.backtests.saveResult(result(record.id, 1));
          await store.backtests.saveResult(result(record.id, 2));
          expect(await readResult(store, userId, record.id)).toEqual(result(record.id, 2));
          const empty: BacktestResultRecord = { backtestId: record.id, equityCurve: [], trades: [], tradeCount: 0, metrics: {} };
          await store.backtests.saveResult(empty);
          expect(await readResult(store, userId, record.id)).toEqual(empty);
        });

        it('stores a large equity curve unchanged', async () => {
          const record = backtest(userId, { status: 'completed' });
          await store.backtests.insert(record);
          const equityCurve = Array.from({ length: 50_000 }, (_, i) => ({ time: at(i * 60), equity: 10_000 + Math.sin(i) * 1234.567_89 }));
          await store.backtests.saveResult({ backtestId: record.id, equityCurve, trades: [], tradeCount: 0, metrics: { tradeCount: 0 } });
          const found = await readResult(store, userId, record.id);
          expect(found?.equityCurve).toHaveLength(50_000);
          expect(found?.equityCurve).toEqual(equityCurve);
        });

        it("returns null for another user's backtest, a missing one, or one without results", async () => {
          const theirs = backtest(otherUserId, { status: 'completed' });
          const mine = backtest(userId, { status: 'completed' });
          await store.backtests.insert(theirs);
          await store.backtests.insert(mine);
          await store.backtests.saveResult(result(theirs.id));
          expect(await readResult(store, otherUserId, theirs.id)).toEqual(result(theirs.id));
          expect(await readResult(store, userId, theirs.id)).toBeNull();
          expect(await readResult(store, userId, mine.id)).toBeNull();
          expect(await readResult(store, userId, uid('bt'))).toBeNull();
        });

        it("keeps each backtest's results apart", async () => {
          const a = backtest(userId, { status: 'completed' });
          const b = backtest(userId, { status: 'completed' });
          await store.backtests.insert(a);
          await store.backtests.insert(b);
          await store.backtests.saveResult(result(a.id, 1));
          await store.backtests.saveResult(result(b.id, 3));
          expect(await readResult(store, userId, a.id)).toEqual(result(a.id, 1));
          expect(await readResult(store, userId, b.id)).toEqual(result(b.id, 3));
        });

        it('is not changed by mutating the saved or returned object', async () => {
          const record = backtest(userId, { status: 'completed' });
          await store.backtests.insert(record);
          const saved = result(record.id);
          await store.backtests.saveResult(saved);
          saved.equityCurve.push({ time: at(999), equity: 0 });
          saved.metrics.tradeCount = 99;
          saved.trades[0]!.pnl = 1234;
          const found = await readResult(store, userId, record.id);
          expect(found).toEqual(result(record.id));
          found!.trades[1]!.side = 'mutated';
          found!.trades.pop();
          (found!.metrics.perSymbol as Record<string, unknown>).mutated = true;
          expect(await readResult(store, userId, record.id)).toEqual(result(record.id));
        });
      });
    });

    describe('candles', () => {
      /** A (source, symbol, timeframe) of this test only: candles are not scoped to users. */
      let key: { source: string; symbol: string; timeframe: string };
      beforeEach(() => {
        key = { source: uid('src'), symbol: `${uid('SYM')}/USDT:USDT`, timeframe: '1m' };
      });

      it('returns exactly the bytes stored, as a Uint8Array', async () => {
        const tricky = [Date.UTC(2025, 0, 1), -0, 0, Number.MIN_VALUE, -Number.MAX_VALUE, Infinity, -Infinity, NaN, 0.1 + 0.2, 1e-300, 42_000.5, 1e21];
        const packed = packFloat64(tricky);
        // A view into a larger buffer: only its own bytes are the chunk.
        const backing = new Uint8Array(packed.byteLength + 24).fill(0xab);
        backing.set(packed, 3);
        const data = backing.subarray(3, 3 + packed.byteLength);
        await store.candles.putChunks([{ ...key, day: dayOf(0), count: 2, data }]);
        const [found, ...rest] = await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(0));
        expect(rest).toEqual([]);
        expect(found!.data).toBeInstanceOf(Uint8Array);
        expect(found!.data.byteLength).toBe(packed.byteLength);
        expect(hex(found!.data)).toBe(hex(packed));
        const values = unpackFloat64(found!.data);
        expect(values.every((v, i) => Object.is(v, tricky[i]))).toBe(true);
        expect({ ...found!, data: null }).toEqual({ ...key, day: dayOf(0), count: 2, data: null });
      });

      it('round-trips a day of 1440 candles packed from a Float64Array', async () => {
        // The port's layout is little-endian, as a Float64Array's bytes are on the platforms Node runs on.
        const f64 = new Float64Array(unpackFloat64(candleChunk(key, dayOf(3), 1440, 7).data));
        const chunk: CandleChunkRecord = { ...key, day: dayOf(3), count: 1440, data: new Uint8Array(f64.buffer) };
        await store.candles.putChunks([chunk]);
        const [found] = await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(3), dayOf(3));
        expect(comparable(found!)).toEqual(comparable(chunk));
        expect(found!.data.byteLength).toBe(1440 * 6 * 8);
        expect(new Float64Array(Uint8Array.from(found!.data).buffer)).toEqual(f64);
      });

      it('replaces a chunk stored under the same key, and no other', async () => {
        const first = candleChunk(key, dayOf(1), 3, 1);
        const neighbours = [
          candleChunk(key, dayOf(2), 3, 2),
          candleChunk({ ...key, timeframe: '5m' }, dayOf(1), 3, 3),
          candleChunk({ ...key, source: uid('src') }, dayOf(1), 3, 4),
          candleChunk({ ...key, symbol: `${key.symbol}2` }, dayOf(1), 3, 5),
        ];
        await store.candles.putChunks([first, ...neighbours]);
        const second = candleChunk(key, dayOf(1), 5, 9);
        await store.candles.putChunks([second]);
        const found = await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(9));
        expect(found.map(comparable)).toEqual([comparable(second), comparable(neighbours[0]!)]);
        for (const n of neighbours.slice(1)) {
          expect((await store.candles.getChunks(n.source, n.symbol, n.timeframe, n.day, n.day)).map(comparable)).toEqual([comparable(n)]);
        }
        // Shorter data replaces longer data completely.
        const third = candleChunk(key, dayOf(1), 1, 11);
        await store.candles.putChunks([third]);
        expect((await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(1), dayOf(1))).map(comparable)).toEqual([comparable(third)]);
      });

      it('keeps the last of several chunks with the same key in one call', async () => {
        const chunks = [candleChunk(key, dayOf(0), 2, 1), candleChunk(key, dayOf(1), 2, 2), candleChunk(key, dayOf(0), 4, 3)];
        await store.candles.putChunks(chunks);
        const found = await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(1));
        expect(found.map(comparable)).toEqual([comparable(chunks[2]!), comparable(chunks[1]!)]);
      });

      it('returns the chunks whose day is within [fromDay, toDay], in day order', async () => {
        const days = [5, 0, 9, 3, 1, 8, 2, 31, 40, 365];
        const chunks = days.map((d) => candleChunk(key, dayOf(d), 2, d));
        await store.candles.putChunks(chunks);
        // The same days under other keys never show.
        await store.candles.putChunks(days.map((d) => candleChunk({ ...key, timeframe: '1h' }, dayOf(d), 1, 100 + d)));
        await store.candles.putChunks(days.map((d) => candleChunk({ ...key, source: `${key.source}x` }, dayOf(d), 1, 200 + d)));
        const get = async (from: string, to: string) => (await store.candles.getChunks(key.source, key.symbol, key.timeframe, from, to)).map(comparable);
        const expected = (from: number, to: number) =>
          chunks
            .filter((c) => c.day >= dayOf(from) && c.day <= dayOf(to))
            .sort((a, b) => (a.day < b.day ? -1 : 1))
            .map(comparable);

        expect((await get(dayOf(0), dayOf(400))).map((c) => c.day)).toEqual([0, 1, 2, 3, 5, 8, 9, 31, 40, 365].map(dayOf));
        expect(await get(dayOf(0), dayOf(400))).toEqual(expected(0, 400));
        expect(await get(dayOf(2), dayOf(8))).toEqual(expected(2, 8));
        expect((await get(dayOf(2), dayOf(8))).map((c) => c.day)).toEqual([2, 3, 5, 8].map(dayOf));
        expect(await get(dayOf(4), dayOf(4))).toEqual([]);
        expect(await get(dayOf(5), dayOf(5))).toEqual(expected(5, 5));
        expect(await get(dayOf(10), dayOf(30))).toEqual([]);
        expect(await get(dayOf(9), dayOf(3))).toEqual([]);
        expect(await get('2024-01-01', '2024-12-31')).toEqual([]);
        expect(await get('2024-12-31', dayOf(1))).toEqual(expected(0, 1));
        expect(await store.candles.getChunks(key.source, `${key.symbol}?`, key.timeframe, dayOf(0), dayOf(400))).toEqual([]);
      });

      it('stores hundreds of chunks in one call, and nothing for an empty one', async () => {
        await store.candles.putChunks([]);
        const chunks = Array.from({ length: 300 }, (_, d) => candleChunk(key, dayOf(d), 1 + (d % 3), d));
        await store.candles.putChunks([...chunks].reverse());
        const found = await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(299));
        expect(found.map(comparable)).toEqual(chunks.map(comparable));
      });

      it('is not changed by mutating the stored or returned bytes', async () => {
        const chunk = candleChunk(key, dayOf(0), 2, 1);
        const expected = comparable(chunk);
        await store.candles.putChunks([chunk]);
        chunk.data.fill(0);
        const [found] = await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(0));
        expect(comparable(found!)).toEqual(expected);
        found!.data.fill(1);
        const [again] = await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(0));
        expect(comparable(again!)).toEqual(expected);
      });

      it('countChunks counts the chunks whose day is within [fromDay, toDay] and the candles they hold', async () => {
        expect(await store.candles.countChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(400))).toEqual({ days: 0, candles: 0 });
        const days = [0, 1, 2, 5, 31];
        await store.candles.putChunks(days.map((d) => candleChunk(key, dayOf(d), d === 2 ? 0 : d + 1, d)));
        // The same days under other keys never count.
        await store.candles.putChunks(days.map((d) => candleChunk({ ...key, timeframe: '1h' }, dayOf(d), 7, d)));
        await store.candles.putChunks(days.map((d) => candleChunk({ ...key, source: `${key.source}x` }, dayOf(d), 7, d)));
        const count = (from: number, to: number) => store.candles.countChunks(key.source, key.symbol, key.timeframe, dayOf(from), dayOf(to));
        expect(await count(0, 400)).toEqual({ days: 5, candles: 1 + 2 + 0 + 6 + 32 });
        expect(await count(1, 5)).toEqual({ days: 3, candles: 2 + 0 + 6 });
        expect(await count(2, 2)).toEqual({ days: 1, candles: 0 }); // a day written empty is a day
        expect(await count(3, 4)).toEqual({ days: 0, candles: 0 });
        expect(await count(5, 1)).toEqual({ days: 0, candles: 0 });
        // A day rewritten counts once, with its new candles.
        await store.candles.putChunks([candleChunk(key, dayOf(5), 2, 9)]);
        expect(await count(5, 5)).toEqual({ days: 1, candles: 2 });
      });

      it('listSources lists each source holding any chunk of the symbol and timeframe, once', async () => {
        expect(await store.candles.listSources(key.symbol, key.timeframe)).toEqual([]);
        const sources = ['synthetic', 'csv', 'ccxt:binance'];
        for (const source of sources) {
          await store.candles.putChunks([0, 1, 2].map((d) => candleChunk({ ...key, source }, dayOf(d), 1)));
        }
        await store.candles.putChunks([candleChunk({ ...key, source: 'other-timeframe', timeframe: '1h' }, dayOf(0), 1)]);
        await store.candles.putChunks([candleChunk({ ...key, source: 'other-symbol', symbol: `${key.symbol}2` }, dayOf(0), 1)]);
        expect([...(await store.candles.listSources(key.symbol, key.timeframe))].sort()).toEqual([...sources].sort());
        expect(await store.candles.listSources(key.symbol, '1h')).toEqual(['other-timeframe']);
        expect(await store.candles.listSources(`${key.symbol}2`, key.timeframe)).toEqual(['other-symbol']);
        expect(await store.candles.listSources(`${key.symbol}3`, key.timeframe)).toEqual([]);
      });
    });

    // The funding-rate cache (store-contract-funding.ts).
    describeFundingRatesContract(() => ({ store }));

    // Credentials and live orders (store-contract-live-trading.ts).
    describeLiveTradingContract(() => ({ store, userId, otherUserId }));

    // A backtest's stored trades, in pages (store-contract-backtest-trades.ts).
    describeBacktestTradesContract(() => ({ store, userId, otherUserId, backtest }));

    // A backtest's log lines, in pages (store-contract-backtest-logs.ts).
    describeBacktestLogsContract(() => ({ store, userId, otherUserId, backtest }));

    // Deployment lifecycle and logs (store-contract-deployments.ts).
    describeDeploymentLifecycleContract(() => ({ store, userId, otherUserId }));

    // Marketplace and billing (store-contract-marketplace-billing.ts).
    describeMarketplaceBillingContract(() => ({ store, userId, otherUserId }));

    // Optimizations and their trials (store-contract-optimizations.ts).
    describeOptimizationsContract(() => ({ store, userId, otherUserId, insertStrategy }));

    // Notification channels, the event outbox and deliveries (store-contract-notifications.ts).
    describeNotificationsContract(() => ({ store, userId, otherUserId }));

    // Verified listings: records, listing summaries in search, search effort (store-contract-verification.ts).
    describeVerificationContract(() => ({ store, userId, otherUserId, backtest, insertStrategy }));

    // Drift reports: deployments' recordings, stored reports and thresholds (store-contract-drift.ts).
    describeDriftContract(() => ({ store }));

    describe('transactions', () => {
      it('commits every write when fn resolves, and returns its value', async () => {
        const record = strategy(userId);
        const dep = deployment(userId, { strategyId: record.id });
        const result = await store.transaction(async (tx) => {
          await tx.users.insert({ id: userId, name: 'In tx', createdAt: at(0) });
          await tx.strategies.insert(record);
          await tx.strategies.insertVersion(version(record, 1));
          await tx.deployments.insert(dep);
          return { answer: 42 };
        });
        expect(result).toEqual({ answer: 42 });
        expect(await store.users.findById(userId)).toEqual({ id: userId, name: 'In tx', createdAt: at(0) });
        expect(await store.strategies.findById(userId, record.id)).toEqual(record);
        expect(await store.strategies.getVersion(userId, record.id, 1)).toEqual(version(record, 1));
        expect(await store.deployments.findById(userId, dep.id)).toEqual(dep);
      });

      it('sees its own writes inside the transaction', async () => {
        const record = strategy(userId, { version: 1 });
        await store.transaction(async (tx) => {
          await tx.users.insert({ id: userId, name: 'Visible', createdAt: at(0) });
          expect(await tx.users.findById(userId)).not.toBeNull();
          const key = randomBytes(32).toString('hex');
          await tx.apiKeys.insert({ hash: key, userId, createdAt: at(0) });
          expect(await tx.apiKeys.findUserIdByHash(key)).toBe(userId);
          await tx.strategies.insert(record);
          await tx.strategies.insertVersion(version(record, 1));
          expect(await tx.strategies.findById(userId, record.id, { forUpdate: true })).toEqual(record);
          expect(await tx.strategies.list(userId, { limit: 50 })).toEqual([record]);
          expect(await tx.strategies.update(userId, record.id, { version: 2, name: 'Renamed' })).toBe(true);
          await tx.strategies.insertVersion(version(record, 2));
          expect(await tx.strategies.findById(userId, record.id)).toEqual({ ...record, version: 2, name: 'Renamed' });
          expect((await tx.strategies.listVersions(userId, record.id)).map((v) => v.version)).toEqual([2, 1]);
          expect(await tx.strategies.getVersion(userId, record.id, 2)).toEqual(version(record, 2));
          const dep = deployment(userId, { strategyId: record.id, status: 'starting' });
          await tx.deployments.insert(dep);
          expect(await tx.deployments.findById(userId, dep.id)).toEqual(dep);
          expect(await tx.deployments.list(userId, { limit: 50 })).toEqual([dep]);
          expect(await tx.deployments.countActive(userId, { strategyId: record.id })).toBe(1);
          expect(await tx.strategies.delete(userId, record.id)).toBe(true);
          expect(await tx.strategies.findById(userId, record.id)).toBeNull();
          expect(await tx.strategies.listVersions(userId, record.id)).toEqual([]);
        });
        expect(await store.users.findById(userId)).not.toBeNull();
        expect(await store.strategies.findById(userId, record.id)).toBeNull();
        expect(await store.deployments.countActive(userId)).toBe(1);
      });

      it('rolls back every write when fn throws, and rethrows the error unchanged', async () => {
        const kept = await insertStrategy(userId, { name: 'Kept', version: 2 });
        const doomed = await insertStrategy(userId, { name: 'Doomed' });
        const existingDeployment = deployment(userId, { status: 'running' });
        await store.deployments.insert(existingDeployment);
        const newStrategy = strategy(userId);
        const newDeployment = deployment(userId, { status: 'running' });
        const key = randomBytes(32).toString('hex');

        class CustomError extends Error {
          readonly code = 'CUSTOM';
        }
        const error = new CustomError('boom');
        const outcome = store.transaction(async (tx) => {
          await tx.users.insert({ id: userId, name: 'Rolled back', createdAt: at(0) });
          await tx.apiKeys.insert({ hash: key, userId, createdAt: at(0) });
          await tx.strategies.insert(newStrategy);
          await tx.strategies.insertVersion(version(newStrategy, 1));
          expect(await tx.strategies.update(userId, kept.id, { name: 'Changed', version: 3, updatedAt: at(50) })).toBe(true);
          await tx.strategies.insertVersion(version(kept, 3));
          expect(await tx.strategies.delete(userId, doomed.id)).toBe(true);
          await tx.deployments.insert(newDeployment);
          expect(await tx.deployments.countActive(userId)).toBe(2);
          throw error;
        });
        await expect(outcome).rejects.toBe(error);
        await expect(outcome).rejects.toBeInstanceOf(CustomError);

        expect(await store.users.findById(userId)).toBeNull();
        expect(await store.apiKeys.findUserIdByHash(key)).toBeNull();
        expect(await store.strategies.findById(userId, newStrategy.id)).toBeNull();
        expect(await store.strategies.getVersion(userId, newStrategy.id, 1)).toBeNull();
        expect(await store.strategies.findById(userId, kept.id)).toEqual(kept);
        expect((await store.strategies.listVersions(userId, kept.id)).map((v) => v.version)).toEqual([2, 1]);
        expect(await store.strategies.findById(userId, doomed.id)).toEqual(doomed);
        expect(await store.strategies.getVersion(userId, doomed.id, 1)).toEqual(version(doomed, 1));
        expect(await store.deployments.findById(userId, newDeployment.id)).toBeNull();
        expect(await store.deployments.list(userId, { limit: 50 })).toEqual([existingDeployment]);
        expect(await store.deployments.countActive(userId)).toBe(1);
      });

      it('rolls back earlier writes when a store call inside fails and the error propagates', async () => {
        const record = await insertStrategy(userId);
        const newUser = uid('usr');
        await expect(
          store.transaction(async (tx) => {
            await tx.users.insert({ id: newUser, name: 'Rolled back', createdAt: at(0) });
            await tx.strategies.update(userId, record.id, { name: 'Changed' });
            await tx.strategies.insertVersion(version(record, 1)); // duplicate: throws
          }),
        ).rejects.toThrow();
        expect(await store.users.findById(newUser)).toBeNull();
        expect(await store.strategies.findById(userId, record.id)).toEqual(record);
        // The store is still usable afterwards.
        expect(await store.transaction(async (tx) => tx.strategies.update(userId, record.id, { name: 'Later' }))).toBe(true);
        expect((await store.strategies.findById(userId, record.id))?.name).toBe('Later');
      });

      it('commits and rolls back backtests, results and candles with the transaction', async () => {
        const key = { source: uid('src'), symbol: `${uid('SYM')}/USDT`, timeframe: '1m' };
        const existing = backtest(userId);
        await store.backtests.insert(existing);
        const committed = backtest(userId, { status: 'completed', createdAt: at(1) });
        const chunks = Array.from({ length: 100 }, (_, d) => candleChunk(key, dayOf(d), 2, d));
        await store.transaction(async (tx) => {
          await tx.backtests.insert(committed);
          await tx.backtests.saveResult({
            backtestId: committed.id,
            equityCurve: [{ time: at(1), equity: 1 }],
            trades: [],
            tradeCount: 0,
            metrics: { ok: true },
          });
          expect(await tx.backtests.transition(existing.id, ['queued'], { status: 'running', attempts: 1 })).not.toBeNull();
          await tx.candles.putChunks(chunks);
          expect(await tx.backtests.findById(userId, committed.id)).toEqual(committed);
          expect(await tx.backtests.list(userId, { limit: 50 }, { status: 'completed' })).toEqual([committed]);
          expect(await tx.backtests.countCreatedSince(userId, at(1))).toBe(1);
          expect((await tx.backtests.getResult(userId, committed.id))?.metrics).toEqual({ ok: true });
          expect(await tx.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(99))).toHaveLength(100);
          expect(await tx.candles.listSources(key.symbol, key.timeframe)).toEqual([key.source]);
        });
        expect(await store.backtests.findById(userId, committed.id)).toEqual(committed);
        expect((await store.backtests.getResult(userId, committed.id))?.metrics).toEqual({ ok: true });
        expect((await store.backtests.findById(userId, existing.id))?.status).toBe('running');
        const stored = await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(99));
        expect(stored.map(comparable)).toEqual(chunks.map(comparable));

        const doomed = backtest(userId, { createdAt: at(2) });
        const error = new Error('rollback');
        const otherKey = { ...key, source: uid('src') };
        await expect(
          store.transaction(async (tx) => {
            await tx.backtests.insert(doomed);
            await tx.backtests.saveResult({ backtestId: committed.id, equityCurve: [], trades: [], tradeCount: 0, metrics: { ok: false } });
            expect(await tx.backtests.transition(existing.id, ['running'], { status: 'failed', error: { code: 'X', message: 'y' } })).not.toBeNull();
            await tx.candles.putChunks(chunks.map((c) => candleChunk(key, c.day, 1, 999)));
            await tx.candles.putChunks(chunks.map((c) => candleChunk(otherKey, c.day, 1, 999)));
            throw error;
          }),
        ).rejects.toBe(error);
        expect(await store.backtests.findById(userId, doomed.id)).toBeNull();
        expect((await store.backtests.getResult(userId, committed.id))?.metrics).toEqual({ ok: true });
        expect((await store.backtests.findById(userId, existing.id))?.status).toBe('running');
        const after = await store.candles.getChunks(key.source, key.symbol, key.timeframe, dayOf(0), dayOf(99));
        expect(after.map(comparable)).toEqual(chunks.map(comparable));
        expect(await store.candles.getChunks(otherKey.source, key.symbol, key.timeframe, dayOf(0), dayOf(99))).toEqual([]);
        expect(await store.candles.listSources(key.symbol, key.timeframe)).toEqual([key.source]);
      });

      it('keeps uncommitted writes invisible outside, and drops them on rollback', async () => {
        const inside = gate();
        const release = gate();
        const error = new Error('rollback');
        const outcome = store.transaction(async (tx) => {
          await tx.users.insert({ id: userId, name: 'Uncommitted', createdAt: at(0) });
          inside.open();
          await release.promise;
          throw error;
        });
        await inside.promise;
        // Started while the transaction is open; may wait for it (SQLite) or not (PostgreSQL).
        const outsideRead = store.users.findById(userId);
        release.open();
        await expect(outcome).rejects.toBe(error);
        expect(await outsideRead).toBeNull();
        expect(await store.users.findById(userId)).toBeNull();
      });

      it('does not lose a write made outside while a transaction is open', async () => {
        const inside = gate();
        const release = gate();
        const outsideUser = uid('usr');
        const outcome = store.transaction(async (tx) => {
          await tx.users.insert({ id: userId, name: 'Inside', createdAt: at(0) });
          inside.open();
          await release.promise;
          return 'committed';
        });
        await inside.promise;
        const outsideWrite = store.users.insert({ id: outsideUser, name: 'Outside', createdAt: at(1) });
        release.open();
        expect(await outcome).toBe('committed');
        await outsideWrite;
        expect(await store.users.findById(userId)).toEqual({ id: userId, name: 'Inside', createdAt: at(0) });
        expect(await store.users.findById(outsideUser)).toEqual({ id: outsideUser, name: 'Outside', createdAt: at(1) });
      });

      it('lets concurrent transactions commit or roll back independently', async () => {
        const ids = Array.from({ length: 8 }, () => uid('usr'));
        const results = await Promise.allSettled(
          ids.map((id, i) =>
            store.transaction(async (tx) => {
              await tx.users.insert({ id, name: `User ${i}`, createdAt: at(i) });
              await Promise.resolve();
              if (i % 2 === 1) throw new Error(`fail ${i}`);
              return i;
            }),
          ),
        );
        expect(results.map((r) => r.status)).toEqual(ids.map((_, i) => (i % 2 === 1 ? 'rejected' : 'fulfilled')));
        for (const [i, id] of ids.entries()) {
          expect(await store.users.findById(id)).toEqual(i % 2 === 1 ? null : { id, name: `User ${i}`, createdAt: at(i) });
        }
      });
    });

    describe('concurrency', () => {
      it('bumps versions in 10 concurrent transactions with forUpdate: versions 2..11, none lost or duplicated', async () => {
        const record = await insertStrategy(userId);
        const bump = (i: number) =>
          store.transaction(async (tx) => {
            const current = await tx.strategies.findById(userId, record.id, { forUpdate: true });
            if (!current) throw new Error('strategy vanished');
            const next = current.version + 1;
            await tx.strategies.insertVersion(version(record, next, { source: `// bump ${i}`, createdAt: at(100 + i) }));
            expect(await tx.strategies.update(userId, record.id, { version: next, updatedAt: at(100 + i) })).toBe(true);
            return next;
          });
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => bump(i)));
        expect([...results].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        expect((await store.strategies.findById(userId, record.id))?.version).toBe(11);
        const versions = await store.strategies.listVersions(userId, record.id);
        expect(versions.map((v) => v.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
        const sources = await Promise.all(versions.map((v) => store.strategies.getVersion(userId, record.id, v.version)));
        expect(new Set(sources.map((s) => s?.source)).size).toBe(11);
      });

      it('accepts many concurrent writes outside transactions', async () => {
        const records = Array.from({ length: 20 }, (_, i) => deployment(userId, { createdAt: at(i) }));
        await Promise.all(records.map((r) => store.deployments.insert(r)));
        expect(await store.deployments.list(userId, { limit: 50 })).toEqual([...records].sort(byNewestFirst));
      });
    });

    describe('close', () => {
      it('is safe to call twice, and later calls fail', async () => {
        const own = await factory();
        try {
          await own.store.users.insert({ id: userId, name: 'Before close', createdAt: at(0) });
          expect(await own.store.users.findById(userId)).not.toBeNull();
          await own.store.close();
          await expect(own.store.close()).resolves.toBeUndefined();
          await expect(own.store.users.findById(userId)).rejects.toThrow();
          await expect(own.store.strategies.list(userId, { limit: 1 })).rejects.toThrow();
          await expect(own.store.backtests.findById(userId, uid('bt'))).rejects.toThrow();
          await expect(own.store.candles.getChunks('src', 'SYM', '1m', dayOf(0), dayOf(1))).rejects.toThrow();
          await expect(own.store.transaction(async () => 'never')).rejects.toThrow();
        } finally {
          await own.cleanup();
        }
      });
    });
  });
}
