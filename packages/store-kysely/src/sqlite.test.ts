import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeStoreContract } from '@stratbox/core/testing';
import { createKyselyStore } from './index.js';
import { expectTradesMovedBy0008, seedResultsBefore0008 } from './migration-0008-fixture.js';
import { expectBacktestDeleteCascades } from './backtest-delete-fixture.js';

let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stratbox-sqlite-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A fresh database file in this run's temp directory. */
const nextFile = () => join(dir, `store-${++files}.db`);

describeStoreContract('kysely sqlite', async () => {
  const store = await createKyselyStore({ dialect: 'sqlite', filename: nextFile() });
  return { store, cleanup: () => store.close() };
});

describeStoreContract('kysely sqlite :memory:', async () => {
  const store = await createKyselyStore({ dialect: 'sqlite', filename: ':memory:' });
  return { store, cleanup: () => store.close() };
});

describe('kysely sqlite file', () => {
  it('keeps data across close and reopen, and migrating again changes nothing', async () => {
    const filename = join(dir, 'nested', 'dir', 'reopen.db');
    const first = await createKyselyStore({ dialect: 'sqlite', filename });
    const strategy = {
      id: 'str_reopen',
      userId: 'usr_reopen',
      name: 'Survivor',
      description: '',
      marketType: 'SPOT' as const,
      version: 1,
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:05.000Z',
    };
    await first.transaction(async (tx) => {
      await tx.users.insert({ id: 'usr_reopen', name: 'Ada', createdAt: strategy.createdAt });
      await tx.strategies.insert(strategy);
      await tx.strategies.insertVersion({
        strategyId: strategy.id,
        userId: strategy.userId,
        version: 1,
        source: 'export default {}',
        sourceSha256: 'a'.repeat(64),
        sizeBytes: 17,
        createdAt: strategy.createdAt,
      });
    });
    const migrationsBefore = await first.db
      .selectFrom('kysely_migration' as any)
      .select('name' as any)
      .execute();
    expect(migrationsBefore.map((m: any) => m.name)).toEqual([
      '0001-initial',
      '0002-backtests-and-candles',
      '0003-credentials-and-orders',
      '0004-marketplace-and-billing',
      '0005-deployment-logs',
      '0006-deployment-leases',
      '0007-paper-accounts',
      '0008-backtest-trades',
      '0009-funding-rates',
      '0010-backtest-logs',
      '0011-optimizations',
      '0012-deployment-safety',
      '0013-deployment-risk-state',
      '0014-deployment-accepted-positions',
      '0015-deployment-leverage',
      '0016-notifications',
      '0017-verification-records',
      '0018-drift',
      '0019-purchases-by-listing',
    ]);
    await first.close();

    for (let i = 0; i < 2; i++) {
      const reopened = await createKyselyStore({ dialect: 'sqlite', filename });
      try {
        expect(await reopened.users.findById('usr_reopen')).toEqual({ id: 'usr_reopen', name: 'Ada', createdAt: strategy.createdAt });
        expect(await reopened.strategies.findById('usr_reopen', 'str_reopen')).toEqual(strategy);
        expect((await reopened.strategies.getVersion('usr_reopen', 'str_reopen', 1))?.source).toBe('export default {}');
        const migrations = await reopened.db
          .selectFrom('kysely_migration' as any)
          .select('name' as any)
          .execute();
        expect(migrations).toEqual(migrationsBefore);
      } finally {
        await reopened.close();
      }
    }
  });

  it('migration 0008 moves the trades of results saved before it into their own rows, in order', async () => {
    const filename = nextFile();
    const before = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(filename) }) });
    try {
      await seedResultsBefore0008(before, 'sqlite');
    } finally {
      await before.destroy();
    }
    const store = await createKyselyStore({ dialect: 'sqlite', filename });
    try {
      await expectTradesMovedBy0008(store);
    } finally {
      await store.close();
    }
  });

  it("deleting a backtest deletes its results, trades and log lines, and no other backtest's", async () => {
    const store = await createKyselyStore({ dialect: 'sqlite', filename: nextFile() });
    try {
      await expectBacktestDeleteCascades(store);
    } finally {
      await store.close();
    }
  });

  it('sees writes of another connection or process at once, though it keeps recent reads', async () => {
    const file = nextFile();
    const store = await createKyselyStore({ dialect: 'sqlite', filename: file });
    const other = new BetterSqlite3(file);
    try {
      const now = new Date().toISOString();
      const row = (id: string, name: string) => ({
        id,
        userId: 'usr_reader',
        name,
        description: '',
        marketType: 'LINEAR' as const,
        version: 1,
        createdAt: now,
        updatedAt: now,
      });
      await store.strategies.insert(row('str_cache_aaaaaaaaaaaaaaaa', 'first'));
      expect((await store.strategies.list('usr_reader', { limit: 10 })).map((s) => s.name)).toEqual(['first']);
      expect((await store.strategies.list('usr_reader', { limit: 10 })).map((s) => s.name)).toEqual(['first']);
      // another connection (as another process would) renames it and adds one
      other.prepare("update strategies set name = 'renamed elsewhere' where id = 'str_cache_aaaaaaaaaaaaaaaa'").run();
      other
        .prepare('insert into strategies (id, user_id, name, description, market_type, version, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)')
        .run('str_cache_bbbbbbbbbbbbbbbb', 'usr_reader', 'added elsewhere', '', 'LINEAR', 1, now, now);
      expect((await store.strategies.list('usr_reader', { limit: 10 })).map((s) => s.name).sort()).toEqual(['added elsewhere', 'renamed elsewhere']);
      // its own writes, also inside a transaction that rolls back
      await store.strategies.update('usr_reader', 'str_cache_aaaaaaaaaaaaaaaa', { name: 'renamed here' });
      expect((await store.strategies.findById('usr_reader', 'str_cache_aaaaaaaaaaaaaaaa'))?.name).toBe('renamed here');
      await store
        .transaction(async (tx) => {
          await tx.strategies.update('usr_reader', 'str_cache_aaaaaaaaaaaaaaaa', { name: 'doomed' });
          expect((await tx.strategies.findById('usr_reader', 'str_cache_aaaaaaaaaaaaaaaa'))?.name).toBe('doomed');
          throw new Error('roll back');
        })
        .catch(() => undefined);
      expect((await store.strategies.findById('usr_reader', 'str_cache_aaaaaaaaaaaaaaaa'))?.name).toBe('renamed here');
      // what a caller does to the records it got changes nothing for the next caller
      const [first] = await store.strategies.list('usr_reader', { limit: 1 });
      first!.name = 'mutated by a caller';
      expect((await store.strategies.list('usr_reader', { limit: 1 }))[0]!.name).not.toBe('mutated by a caller');
    } finally {
      other.close();
      await store.close();
    }
  });

  it('opens the file in WAL mode with foreign keys on and a busy timeout', async () => {
    const store = await createKyselyStore({ dialect: 'sqlite', filename: nextFile(), busyTimeoutMs: 1234 });
    try {
      const pragma = async (name: string) => Object.values((await sql.raw(`pragma ${name}`).execute(store.db)).rows[0] as object)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBe(1234);
    } finally {
      await store.close();
    }
  });

  it('serializes concurrent transactions on its single connection instead of interleaving them', async () => {
    const store = await createKyselyStore({ dialect: 'sqlite', filename: nextFile() });
    try {
      const events: string[] = [];
      await Promise.all(
        [0, 1, 2].map((i) =>
          store.transaction(async (tx) => {
            events.push(`begin ${i}`);
            await tx.users.insert({ id: `usr_${i}`, name: `User ${i}`, createdAt: '2026-01-02T03:04:05.000Z' });
            await new Promise((resolve) => setTimeout(resolve, 10));
            expect(await tx.users.findById(`usr_${i}`)).not.toBeNull();
            events.push(`end ${i}`);
          }),
        ),
      );
      expect(events).toEqual(['begin 0', 'end 0', 'begin 1', 'end 1', 'begin 2', 'end 2']);
    } finally {
      await store.close();
    }
  });
});
