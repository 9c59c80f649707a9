import { randomBytes } from 'node:crypto';
import { Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { describeStoreContract } from '@stratbox/core/testing';
import { createKyselyStore } from './index.js';
import { createPostgresDialect, quoteIdentifier } from './dialects/postgres.js';
import { expectTradesMovedBy0008, seedResultsBefore0008 } from './migration-0008-fixture.js';
import { expectBacktestDeleteCascades } from './backtest-delete-fixture.js';

/**
 * Runs the Store contract on PostgreSQL when DATABASE_URL is set, e.g.
 * `DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx vitest run packages/store-kysely`.
 * Every store gets its own schema (`stratbox_test_<random>`), dropped afterwards.
 */
const connectionString = process.env.DATABASE_URL;

if (!connectionString) {
  console.warn('[store-kysely] DATABASE_URL is not set: skipping the PostgreSQL Store tests.');
}

const describePostgres = connectionString ? describe : describe.skip;

describePostgres('kysely postgres', () => {
  const url = connectionString ?? '';
  const schemas = new Set<string>();
  const newSchema = () => {
    const schema = `stratbox_test_${randomBytes(6).toString('hex')}`;
    schemas.add(schema);
    return schema;
  };

  async function dropSchemas(names: Iterable<string>) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const name of names) await client.query(`drop schema if exists ${quoteIdentifier(name)} cascade`);
    } finally {
      await client.end();
    }
  }

  afterAll(async () => {
    // Safety net: a test that failed before its own cleanup still leaves nothing behind.
    await dropSchemas(schemas);
  });

  describeStoreContract('kysely postgres', async () => {
    const schema = newSchema();
    const store = await createKyselyStore({ dialect: 'postgres', connectionString: url, schema, poolSize: 12 });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await dropSchemas([schema]);
        schemas.delete(schema);
      },
    };
  });

  it('migration 0008 moves the trades of results saved before it into their own rows, in order', async () => {
    const schema = newSchema();
    const before = new Kysely<any>({ dialect: await createPostgresDialect({ dialect: 'postgres', connectionString: url, schema }) });
    try {
      await seedResultsBefore0008(before, 'postgres', schema);
    } finally {
      await before.destroy();
    }
    const store = await createKyselyStore({ dialect: 'postgres', connectionString: url, schema });
    try {
      await expectTradesMovedBy0008(store);
    } finally {
      await store.close();
      await dropSchemas([schema]);
    }
  });

  it("deleting a backtest deletes its results, trades and log lines, and no other backtest's", async () => {
    const schema = newSchema();
    const store = await createKyselyStore({ dialect: 'postgres', connectionString: url, schema });
    try {
      await expectBacktestDeleteCascades(store);
    } finally {
      await store.close();
      await dropSchemas([schema]);
    }
  });

  it('keeps its tables in the given schema, survives reopening, and migrates idempotently', async () => {
    const schema = newSchema();
    const first = await createKyselyStore({ dialect: 'postgres', connectionString: url, schema });
    await first.users.insert({ id: 'usr_pg', name: 'Ada', createdAt: '2026-01-02T03:04:05.000Z' });
    await first.close();

    const again = await Promise.all([0, 1].map(() => createKyselyStore({ dialect: 'postgres', connectionString: url, schema })));
    try {
      for (const store of again) {
        expect(await store.users.findById('usr_pg')).toEqual({ id: 'usr_pg', name: 'Ada', createdAt: '2026-01-02T03:04:05.000Z' });
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const tables = await client.query<{ table_name: string }>(
          'select table_name from information_schema.tables where table_schema = $1 order by table_name',
          [schema],
        );
        expect(tables.rows.map((r) => r.table_name)).toEqual([
          'api_keys',
          'backtest_logs',
          'backtest_results',
          'backtest_trades',
          'backtests',
          'billing_customers',
          'candle_chunks',
          'credentials',
          'deployment_logs',
          'deployments',
          'drift_candles',
          'drift_intents',
          'drift_reports',
          'drift_runs',
          'drift_thresholds',
          'funding_chunks',
          'kysely_migration',
          'kysely_migration_lock',
          'listing_tags',
          'listings',
          'local_invoices',
          'notification_channels',
          'notification_deliveries',
          'notification_events',
          'optimization_results',
          'optimization_trials',
          'optimizations',
          'orders',
          'paper_accounts',
          'processed_events',
          'purchases',
          'reviews',
          'strategies',
          'strategy_versions',
          'subscriptions',
          'usage_counters',
          'users',
          'verification_records',
        ]);
        const migrations = await client.query(`select name from ${quoteIdentifier(schema)}.kysely_migration order by name`);
        expect(migrations.rows).toEqual([
          { name: '0001-initial' },
          { name: '0002-backtests-and-candles' },
          { name: '0003-credentials-and-orders' },
          { name: '0004-marketplace-and-billing' },
          { name: '0005-deployment-logs' },
          { name: '0006-deployment-leases' },
          { name: '0007-paper-accounts' },
          { name: '0008-backtest-trades' },
          { name: '0009-funding-rates' },
          { name: '0010-backtest-logs' },
          { name: '0011-optimizations' },
          { name: '0012-deployment-safety' },
          { name: '0013-deployment-risk-state' },
          { name: '0014-deployment-accepted-positions' },
          { name: '0015-deployment-leverage' },
          { name: '0016-notifications' },
          { name: '0017-verification-records' },
          { name: '0018-drift' },
          { name: '0019-purchases-by-listing' },
        ]);
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all(again.map((s) => s.close()));
    }
  });

  it('runs beside another Stratbox of the same database: a store on the default schema migrates while another schema holds the tables', async () => {
    // An empty database of its own, so its `public` schema starts empty as on a fresh machine.
    const database = `stratbox_test_db_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${quoteIdentifier(database)}`);
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${database}`;
    const stores: Array<{ close(): Promise<void> }> = [];
    try {
      const other = await createKyselyStore({ dialect: 'postgres', connectionString: dbUrl.toString(), schema: 'other_stratbox' });
      stores.push(other);
      const byDefault = await createKyselyStore({ dialect: 'postgres', connectionString: dbUrl.toString() });
      stores.push(byDefault);
      // The search path given by libpq's options names the schema too.
      const viaOptions = new URL(dbUrl);
      const pathClient = new pg.Client({ connectionString: dbUrl.toString() });
      await pathClient.connect();
      await pathClient.query('create schema third_stratbox');
      await pathClient.end();
      viaOptions.searchParams.set('options', '-csearch_path=third_stratbox');
      const bySearchPath = await createKyselyStore({ dialect: 'postgres', connectionString: viaOptions.toString() });
      stores.push(bySearchPath);

      await other.users.insert({ id: 'usr_other', name: 'Other', createdAt: '2026-01-02T03:04:05.000Z' });
      await byDefault.users.insert({ id: 'usr_public', name: 'Public', createdAt: '2026-01-02T03:04:05.000Z' });
      await bySearchPath.users.insert({ id: 'usr_third', name: 'Third', createdAt: '2026-01-02T03:04:05.000Z' });
      expect(await byDefault.users.findById('usr_other')).toBeNull();
      expect(await byDefault.users.findById('usr_public')).toMatchObject({ name: 'Public' });
      expect(await other.users.findById('usr_public')).toBeNull();
      expect(await bySearchPath.users.findById('usr_third')).toMatchObject({ name: 'Third' });

      const client = new pg.Client({ connectionString: dbUrl.toString() });
      await client.connect();
      try {
        const bookkeeping = await client.query<{ table_schema: string }>(
          "select table_schema from information_schema.tables where table_name = 'kysely_migration_lock' order by table_schema",
        );
        expect(bookkeeping.rows.map((r) => r.table_schema)).toEqual(['other_stratbox', 'public', 'third_stratbox']);
      } finally {
        await client.end();
      }
    } finally {
      for (const store of stores) await store.close();
      await admin.query(`drop database if exists ${quoteIdentifier(database)} with (force)`);
      await admin.end();
    }
  });
});
