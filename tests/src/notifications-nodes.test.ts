import { randomBytes } from 'node:crypto';
import { createStratboxClient } from '@stratbox/client';
import { recordNotificationEvent, type Store } from '@stratbox/core';
import { startWebhookReceiver, type WebhookReceiver } from '@stratbox/core/testing';
import { createKyselyStore } from '@stratbox/store-kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedBackends, requirePostgresAndRedis, startNode, type NodeProcess } from './harness/cluster.js';
import { waitFor } from './harness/deferred.js';
import { startTestService, type TestService } from './harness/in-process.js';
import { createUserWithCli, tempDataDir } from './harness/server-process.js';

/*
 * Deliveries across nodes: the Store is the work queue of deliveries, so however many nodes run,
 * each event reaches a channel once. Two example server processes on one PostgreSQL schema and
 * one Redis prefix (BullMQ queue and Redis event bus), and one in-process node on SQLite.
 */

const EVENTS = 300;

/** Writes `count` backtest.completed events about distinct runs (so flood control digests none) as the services do: each in a transaction. */
async function writeEvents(store: Store, userId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const backtestId = `bt_${randomBytes(16).toString('base64url').slice(0, 22)}`;
    const id = await store.transaction((tx) =>
      recordNotificationEvent(tx, {
        type: 'backtest.completed',
        userId,
        subject: { kind: 'backtest', id: backtestId },
        summary: `Backtest ${backtestId} completed: +1.00 %`,
        data: { backtestId, strategyId: 'str_AAAAAAAAAAAAAAAAAAAAAA', metrics: { totalReturn: 0.01, maxDrawdown: 0.02, sharpe: 1, tradeCount: i } },
        time: new Date().toISOString(),
      }),
    );
    ids.push(id!);
  }
  return ids;
}

/** Every event id arrived, none twice, and nothing else came. */
function expectEachOnce(receiver: WebhookReceiver, ids: string[]) {
  const keys = receiver.requests.map((r) => r.headers['idempotency-key'] as string);
  const bodies = receiver.requests.map((r) => (JSON.parse(r.rawBody) as { id: string }).id);
  expect(keys).toEqual(bodies);
  const seen = new Map<string, number>();
  for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + 1);
  expect([...seen.values()].filter((n) => n > 1)).toEqual([]);
  expect([...seen.keys()].sort()).toEqual([...ids].sort());
}

const available = await requirePostgresAndRedis('notifications-nodes');

describe.runIf(available)('notifications on two nodes sharing PostgreSQL and Redis (BullMQ)', () => {
  const backends = isolatedBackends('notify');
  const data = tempDataDir();
  const env = {
    ...backends.env,
    DATA_DIR: data.dir,
    STRATBOX_MASTER_KEY: randomBytes(32).toString('base64'),
    STRATBOX_NOTIFY_ALLOW_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'info',
  };
  const nodes: NodeProcess[] = [];
  let store: Store | undefined;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await Promise.allSettled(nodes.map((n) => n.stop('SIGKILL')));
    await store?.close();
    await receiver?.close();
    await backends.remove();
    data.remove();
  });

  it(`delivers ${EVENTS} events once each, some by each node`, { timeout: 240_000 }, async () => {
    const user = await createUserWithCli('ops', env); // also migrates the schema
    const started = await Promise.all([startNode(env, 'listening'), startNode(env, 'listening')]);
    nodes.push(...started);
    const client = createStratboxClient({ baseUrl: started[0].baseUrl!, apiKey: user.apiKey });
    const channel = await client.notifications.create({ body: { kind: 'webhook', label: 'both nodes', url: `${receiver.url}/nodes` } });

    const url = new URL(backends.env.DATABASE_URL!);
    const schema = url.searchParams.get('schema')!;
    url.searchParams.delete('schema');
    store = await createKyselyStore({ dialect: 'postgres', connectionString: url.toString(), schema });
    const ids = await writeEvents(store, user.userId, EVENTS);

    await receiver.waitForRequests(EVENTS, 180_000);
    const deliveredBy = (node: NodeProcess) =>
      node
        .logs('Notification delivered')
        .filter((e) => e.channelId === channel.id)
        .map((e) => e.deliveryId as string);
    // every delivery recorded as delivered, by one node or the other
    await waitFor('both nodes to log all deliveries', () => deliveredBy(started[0]).length + deliveredBy(started[1]).length >= EVENTS, 60_000);
    const pending = await client.notifications.deliveries({ params: { id: channel.id }, query: { status: 'pending' } });
    expect(pending.deliveries).toEqual([]);

    expectEachOnce(receiver, ids);
    const [one, two] = [deliveredBy(started[0]), deliveredBy(started[1])];
    expect(one.length, `node 1 delivered ${one.length}, node 2 ${two.length}`).toBeGreaterThan(0);
    expect(two.length, `node 1 delivered ${one.length}, node 2 ${two.length}`).toBeGreaterThan(0);
    expect(one.length + two.length).toBe(EVENTS);
    expect(new Set([...one, ...two]).size).toBe(EVENTS);
  });
});

describe('notifications on one in-process node (SQLite, in-process queue)', () => {
  let service: TestService | undefined;
  let receiver: WebhookReceiver | undefined;
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
  });

  it(`delivers ${EVENTS} events once each`, { timeout: 180_000 }, async () => {
    receiver = await startWebhookReceiver();
    service = await startTestService({ notifications: { allowHosts: ['127.0.0.1'] } });
    const { userId } = await service.newUser('ops');
    await service.stratbox.notifications.create(userId, { kind: 'webhook', label: 'one node', url: `${receiver.url}/one`, events: ['*'], minSeverity: 'info' });
    const ids = await writeEvents(service.stratbox.store, userId, EVENTS);
    await receiver.waitForRequests(EVENTS, 120_000);
    expectEachOnce(receiver, ids);
  });
});
