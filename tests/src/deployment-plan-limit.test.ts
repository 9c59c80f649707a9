import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createSilentLogger, createStratbox, type DeploymentRecord, type Stratbox } from '@stratbox/core';
import { createKyselyStore, type KyselyStore } from '@stratbox/store-kysely';
import { tempDataDir } from './harness/server-process.js';

/*
 * The plan's live bot limit is per user, while the per-symbol check locks one credential: creates
 * (and restarts) by one user on different credentials must still not both take the last slot.
 * Run on SQLite, and on PostgreSQL (where transactions really run side by side) when
 * DATABASE_URL is set.
 */

const SOURCE = `export const meta = { timeframe: '1m' };\nexport function onCandle() {}\n`;
const N = 6;
const databaseUrl = process.env.DATABASE_URL;

const stores: Array<[string, () => Promise<{ store: KyselyStore; cleanup: () => Promise<void> }>]> = [
  [
    'sqlite',
    async () => {
      const data = tempDataDir();
      const store = await createKyselyStore({ dialect: 'sqlite', filename: join(data.dir, 'stratbox.sqlite') });
      return { store, cleanup: async () => data.remove() };
    },
  ],
];
if (databaseUrl) {
  stores.push([
    'postgres',
    async () => {
      const schema = `stratbox_test_${randomBytes(6).toString('hex')}`;
      const store = await createKyselyStore({ dialect: 'postgres', connectionString: databaseUrl, schema, poolSize: N + 2 });
      return {
        store,
        cleanup: async () => {
          const client = new pg.Client({ connectionString: databaseUrl });
          await client.connect();
          await client.query(`drop schema if exists "${schema}" cascade`).finally(() => client.end());
        },
      };
    },
  ]);
} else {
  console.warn('[deployment-plan-limit] DATABASE_URL is not set: running on SQLite only.');
}

describe.each(stores)('the live bot limit under concurrent requests (%s)', (_name, open) => {
  let stratbox: Stratbox;
  let store: KyselyStore;
  let cleanup: () => Promise<void> = async () => {};

  afterAll(async () => {
    await stratbox?.close();
    await cleanup();
  });

  /** A user with a strategy and N paper credentials. */
  async function userWithCredentials(name: string) {
    const { userId } = await stratbox.users.createUser(name);
    const strategy = await stratbox.strategies.create(userId, { name: 'idle', description: '', source: SOURCE, marketType: 'LINEAR' });
    const credentials = await Promise.all(
      Array.from({ length: N }, (_, i) => stratbox.credentials.create(userId, { exchange: 'paper', label: `p${i}`, apiKey: 'k', secret: 's', testnet: false })),
    );
    return { userId, strategyId: strategy.id, credentialIds: credentials.map((c) => c.id) };
  }

  function expectOneWinner(results: PromiseSettledResult<unknown>[]) {
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) {
      expect(r.reason).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', status: 402, details: { counter: 'deployments', used: 1, limit: 1 } });
    }
  }

  it(`of ${N} concurrent creates on different credentials exactly one passes a limit of 1; the others answer 402`, async () => {
    ({ store, cleanup } = await open());
    // This process runs no deployment: the limit is what is tested, not trading.
    stratbox = createStratbox({
      store,
      logger: createSilentLogger(),
      workerConcurrency: 0,
      deployments: { run: false },
      billing: { plans: { free: { limits: { deployments: 1 } } } },
    });
    const { userId, strategyId, credentialIds } = await userWithCredentials('alice');
    const results = await Promise.allSettled(
      credentialIds.map((credentialId) => stratbox.deployments.create(userId, { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} })),
    );
    expectOneWinner(results);
    expect(await store.deployments.countActive(userId)).toBe(1);
  }, 120_000);

  it(`of ${N} concurrent restarts of stopped deployments on different credentials exactly one passes; the others answer 402`, async () => {
    const { userId, strategyId, credentialIds } = await userWithCredentials('bob');
    const time = new Date().toISOString();
    const ids: string[] = [];
    for (const credentialId of credentialIds) {
      const d: DeploymentRecord = {
        id: `dep_${randomBytes(16).toString('base64url')}`,
        userId,
        strategyId,
        strategyVersion: 1,
        credentialId,
        symbols: ['BTC/USDT:USDT'],
        params: {},
        status: 'stopped',
        error: null,
        createdAt: time,
        updatedAt: time,
        startedAt: time,
        stoppedAt: time,
      };
      await store.deployments.insert(d);
      ids.push(d.id);
    }
    const results = await Promise.allSettled(ids.map((id) => stratbox.deployments.restart(userId, id)));
    expectOneWinner(results);
    expect(await store.deployments.countActive(userId)).toBe(1);
  }, 120_000);
});
