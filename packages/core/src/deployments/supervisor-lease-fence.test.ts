import { afterEach, describe, expect, it } from 'vitest';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import type { Clock } from '../ports/clock.js';
import { createSilentLogger } from '../ports/logger.js';
import { createMemoryStore } from '../testing/memory-store.js';

/*
 * Live fault 11 through the real supervisor: a node that still believes it holds a deployment's
 * lease (its renewal is far off) while another node took it in the Store sends no more orders.
 * Every order first confirms the lease in the Store (lease-fence.ts).
 */

/** A buy on every closed candle. */
const SOURCE = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, candle) { ctx.buy(candle.symbol, { quantity: 0.001 }); }
`;

/** 400 times real time: a 1m candle closes every 150 ms. */
function fastClock(): Clock {
  const start = Date.now();
  return { now: () => new Date(start + (Date.now() - start) * 400) };
}

describe('the lease fence of the supervisor', () => {
  let stratbox: Stratbox | undefined;
  afterEach(async () => {
    await stratbox?.close();
    stratbox = undefined;
  });

  it('11. a node whose lease was taken in the Store sends no order after that, before it notices at its renewal', async () => {
    const store = createMemoryStore();
    stratbox = createStratbox({
      store,
      clock: fastClock(),
      logger: createSilentLogger(),
      workerConcurrency: 0,
      // Renewals every 40 s: this node would go on trading that long without the fence.
      deployments: { leaseMs: 120_000, pollIntervalMs: 40, scanIntervalMs: 60_000 },
    });
    await stratbox.start();
    const { userId } = await stratbox.users.createUser('alice');
    const strategy = await stratbox.strategies.create(userId, { name: 'buyer', description: '', source: SOURCE, marketType: 'LINEAR' });
    const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    const deployment = await stratbox.deployments.create(userId, { strategyId: strategy.id, credentialId: credential.id, symbols: ['BTC/USDT:USDT'] });
    const filled = async () => (await store.orders.listByDeployment(userId, deployment.id, { limit: 500 })).filter((o) => o.status === 'filled').length;
    await expect.poll(filled, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);

    // Another node takes the deployment over (its clock says this node's lease ran out).
    const later = Date.now() + 600_000;
    expect(await store.deployments.acquireLease(deployment.id, 'node-b', new Date(later + 120_000).toISOString(), new Date(later).toISOString())).toBe(true);
    const logs = async () => (await store.deploymentLogs.list(userId, deployment.id, { limit: 1000 })).map((l) => l.message);
    await expect.poll(async () => (await logs()).some((m) => m.includes('not sent: this process no longer holds the lease')), { timeout: 60_000 }).toBe(true);
    const orders = await store.orders.listByDeployment(userId, deployment.id, { limit: 500 });
    const refused = orders.find((o) => o.status === 'rejected')!;
    // Nothing after the refused one reached the exchange: every later order is refused as well.
    expect(orders.filter((o) => o.createdAt > refused.createdAt).every((o) => o.status === 'rejected')).toBe(true);
  }, 120_000);
});
