import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DeploymentStatus } from '../contract/deployments.js';
import type {
  DeploymentRecord,
  ListPosition,
  PageRequest,
  Store,
  StrategyRecord,
  StrategyVersionRecord,
} from '../ports/store.js';

/** Makes a fresh, empty store for one test file, and cleans it up afterwards. */
export type StoreFactory = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

/* ------------------------------------------------------------------------------------------ */
/* Fixtures. Every test makes its own ids, so tests share one store and never see each other. */

const uid = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

const BASE_TIME = Date.UTC(2026, 0, 2, 3, 4, 5);
/** A timestamp `seconds` after a fixed base, in the stored format (ISO 8601, milliseconds, UTC). */
const at = (seconds: number) => new Date(BASE_TIME + seconds * 1000).toISOString();

/**
 * Ids that share a random prefix and end in characters whose byte order differs from
 * case-insensitive or punctuation-ignoring collations: `-` < `0` < `A` < `Z` < `_` < `a`.
 */
const tieIds = (prefix: string) => {
  const base = uid(prefix);
  return ['a', '_', 'Z', 'A', '0', '-'].map((suffix) => `${base}${suffix}`);
};

/** Newest first: createdAt descending, then id descending (code unit order). */
const byNewestFirst = <T extends ListPosition>(a: T, b: T) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1;

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
    ...overrides,
  };
}

const withoutSource = ({ source: _source, ...info }: StrategyVersionRecord) => info;

/** A promise with its resolve exposed, to hold a transaction open at a known point. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Reads a whole newest-first list page by page, following `after` from the last row. */
async function readAllPages<T extends ListPosition>(fetch: (page: PageRequest) => Promise<T[]>, limit: number): Promise<T[][]> {
  const pages: T[][] = [];
  let after: ListPosition | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await fetch(after ? { limit, after } : { limit });
    pages.push(page);
    const last = page[page.length - 1];
    if (page.length < limit || !last) return pages;
    after = { createdAt: last.createdAt, id: last.id };
  }
  throw new Error('Pagination did not end');
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
        it('lists only the user\'s strategies, newest first', async () => {
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
          for (const limit of [1, 2, 3, 4]) {
            const pages = await readAllPages((p) => store.strategies.list(userId, p), limit);
            expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
            expect(pages.flat()).toEqual(expected);
          }
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
          expect(await store.deployments.list(userId, { limit: 2, after: { createdAt: last.createdAt, id: last.id } })).toEqual(
            expected.slice(5, 7),
          );
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
          await expect(own.store.transaction(async () => 'never')).rejects.toThrow();
        } finally {
          await own.cleanup();
        }
      });
    });
  });
}
