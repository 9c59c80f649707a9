import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { isolatedBackends, requirePostgresAndRedis, startNode, type NodeProcess } from './harness/cluster.js';
import { waitFor } from './harness/deferred.js';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET, startFakeBinance, type FakeBinance } from '@stratbox/core/testing';
import { createUserWithCli } from './harness/server-process.js';

/*
 * A live deployment moves to another worker when its worker dies: 1 API process and 2 worker
 * processes of the example server share PostgreSQL (a schema of their own) and Redis (a key
 * prefix of their own), and trade on a local Binance USDT-M stand-in (the real ccxt class, its
 * API moved by STRATBOX_EXCHANGE_URLS). The worker holding the deployment's lease is SIGKILLed;
 * the other must take the lease over within the lease time plus a scan, resume the deployment
 * (reconciling its orders as after a restart) and keep trading, and the exchange must never
 * receive one client order id twice.
 */

const available = await requirePostgresAndRedis('deployment-failover');

const SYMBOL = 'BTC/USDT:USDT';
// One order per closed candle whenever none is open: with 60x time, about one a second.
const SOURCE = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, candle) {
  if (ctx.orders(candle.symbol).length === 0) ctx.buy(candle.symbol, { quantity: 0.001 });
}
`;
// Long enough that a worker starved by a loaded machine (two test suites at once) keeps renewing in time.
const LEASE_MS = 8000;
const SCAN_MS = 500;

type Node = NodeProcess & { baseUrl?: string };

describe.runIf(available)('deployment failover: 1 API process and 2 workers on PostgreSQL and Redis', () => {
  const backends = isolatedBackends('failover');
  let fake: FakeBinance;
  const nodes: Node[] = [];
  let env: Record<string, string>;
  let api: Node;
  let client: StratboxClient;
  let firstDeploymentId: string;
  let survivor: Node;

  beforeAll(async () => {
    fake = await startFakeBinance();
    env = {
      ...backends.env,
      STRATBOX_MASTER_KEY: randomBytes(32).toString('base64'),
      STRATBOX_EXCHANGE_URLS: JSON.stringify({ binanceusdm: fake.url }),
      STRATBOX_DEPLOYMENT_POLL_MS: '100',
      STRATBOX_DEPLOYMENT_LEASE_MS: String(LEASE_MS),
      STRATBOX_DEPLOYMENT_SCAN_MS: String(SCAN_MS),
      // One '1m' candle closes every second; every process shares the origin, so their clocks agree.
      STRATBOX_CLOCK_SPEED: '60',
      STRATBOX_CLOCK_ORIGIN: String(Date.now()),
      LOG_LEVEL: 'info',
    };
  });

  afterAll(async () => {
    await Promise.allSettled(nodes.map((n) => n.stop('SIGKILL')));
    await fake?.close();
    await backends.remove();
  });

  it('the other worker runs the deployment within the lease time after its worker is SIGKILLed, without a duplicate order', async () => {
    const { apiKey } = await createUserWithCli('trader', env); // also migrates the schema
    const started = await Promise.all([
      startNode({ ...env, STRATBOX_ROLE: 'api' }, 'listening'),
      startNode({ ...env, STRATBOX_ROLE: 'worker' }, 'worker ready'),
      startNode({ ...env, STRATBOX_ROLE: 'worker' }, 'worker ready'),
    ]);
    nodes.push(...started);
    const [apiNode, ...workers] = started as [Node, Node, Node];
    api = apiNode;
    client = createStratboxClient({ baseUrl: api.baseUrl!, apiKey });
    const credentialId = (
      await client.credentials.create({ body: { exchange: 'binanceusdm', label: 'fake', apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET } })
    ).id;
    const strategyId = (await client.strategies.create({ body: { name: 'keep buying', source: SOURCE } })).id;
    const deployment = await client.deployments.create({ body: { strategyId, credentialId, symbols: [SYMBOL], params: {} } });
    firstDeploymentId = deployment.id;

    const acquired = (node: Node) => node.logs('deployment lease acquired').filter((e) => e.deploymentId === deployment.id);
    const owner = await waitFor('a worker to take the deployment', () => workers.find((w) => acquired(w).length > 0), 30_000);
    const other = workers.find((w) => w !== owner)!;
    survivor = other;
    expect(acquired(owner)[0]).toMatchObject({ pid: owner.pid });
    expect(api.logs('deployment lease acquired')).toEqual([]);

    const orderPosts = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/fapi/v1/order');
    await waitFor(
      'the deployment to be running and trading',
      async () => (await client.deployments.get({ params: { id: deployment.id } })).status === 'running' && orderPosts().length >= 2,
      30_000,
    );
    expect(acquired(other)).toEqual([]);

    expect(await owner.stop('SIGKILL')).toBe(null);
    const postsAtKill = orderPosts().length;

    // Taken over once the dead worker's lease expires, at the next scan: within LEASE_MS + SCAN_MS
    // on an idle machine; the wait allows 15x that for a loaded one. The lease is the configured one.
    const taken = await waitFor('the other worker to take the lease over', () => acquired(other)[0], 15 * (LEASE_MS + SCAN_MS));
    expect(taken).toMatchObject({ pid: other.pid, deploymentId: deployment.id, leaseMs: LEASE_MS });
    expect((await client.deployments.get({ params: { id: deployment.id } })).status).toBe('running');

    // It runs there: resumed through the restart path, and trading again.
    await waitFor(
      'the deployment to resume on the other worker',
      async () =>
        (await client.deployments.logs({ params: { id: deployment.id }, query: { limit: 1000 } })).some((l) =>
          l.message.startsWith('Deployment resumed after a restart'),
        ),
      10_000,
    );
    await waitFor('new orders from the other worker', () => orderPosts().length >= postsAtKill + 2, 15_000);
    expect((await client.deployments.get({ params: { id: deployment.id } })).status).toBe('running');
    expect(other.logs('deployment lease lost')).toEqual([]);

    // Each client order id reached the exchange once.
    const ids = orderPosts().map((c) => c.params['newClientOrderId']);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(fake.orders.size).toBe(ids.length);
  }, 150_000);

  it('a stop asked of the API process is carried out by the worker running the deployment: its paper position is closed there', async () => {
    // The deployment that moved to the surviving worker stops through the API process too (the free plan runs one bot).
    const first = await client.deployments.stop({ params: { id: firstDeploymentId } });
    expect(first.status).toBe('stopped');
    expect(Number(fake.position.amt)).toBe(0);
    expect([...fake.orders.values()].filter((o) => o.status === 'NEW')).toEqual([]);

    // Paper accounts live in the process that trades: only the lease holder can flatten one.
    const credentialId = (await client.credentials.create({ body: { exchange: 'paper', label: 'paper', apiKey: 'paper-key', secret: 'paper-secret' } })).id;
    const strategyId = (
      await client.strategies.create({
        body: {
          name: 'buy once',
          source: `export const meta = { timeframe: '1m' };\nexport function onCandle(ctx, c) { if (!ctx.position(c.symbol) && ctx.orders(c.symbol).length === 0) ctx.buy(c.symbol, { quantity: 0.01 }); }`,
        },
      })
    ).id;
    const deployment = await client.deployments.create({ body: { strategyId, credentialId, symbols: [SYMBOL], params: {} } });
    const messages = async () => (await client.deployments.logs({ params: { id: deployment.id }, query: { limit: 1000 } })).map((l) => l.message);
    await waitFor('the entry to fill on the worker', async () => (await messages()).some((m) => m.startsWith('Order filled')), 30_000);
    expect(api.logs('deployment lease acquired').filter((e) => e.deploymentId === deployment.id)).toEqual([]);

    const stopped = await client.deployments.stop({ params: { id: deployment.id } });
    expect(stopped.status).toBe('stopped');
    const after = await messages();
    expect(after.filter((m) => m.startsWith('Closing position'))).toHaveLength(1);
    expect(after[after.length - 1]).toMatch(/^Deployment stopped \(1 position\(s\) closed\)/);
    expect(api.logs('deployment lease acquired').filter((e) => e.deploymentId === deployment.id)).toEqual([]);
    // The worker running it carried the stop out; the API process only asked.
    expect(survivor.logs('deployment stopping').filter((e) => e.deploymentId === deployment.id)).toHaveLength(1);
    expect(api.logs('deployment stopping')).toEqual([]);
  }, 90_000);
});
