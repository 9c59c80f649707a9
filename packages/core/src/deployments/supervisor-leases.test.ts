import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import { createSilentLogger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';

/*
 * Deployment leases between two Stratbox instances ("processes") sharing one Store: a deployment
 * runs in exactly one of them; one whose renewals stop getting through halts it on its own
 * (self-fencing) before its lease expires, and the other takes it over; one whose lease was
 * taken halts at its next renewal; a clean close hands the deployment over at once.
 */

const SOURCE = `export const meta = { timeframe: '1m' };\nexport function onCandle(ctx, candle) {}\n`;
const LEASE_MS = 600;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Node {
  stratbox: Stratbox;
  /** While true, this node's lease calls never answer (a partition from the database). */
  partitioned: boolean;
  /** Deployments whose lease this node holds, from its log: acquired, until lost or released. */
  holding: Set<string>;
  owner: string;
}

describe('deployment leases across processes', () => {
  const nodes: Node[] = [];
  let base: Store;

  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.stratbox.close()));
    await base?.close();
  });

  function node(masterKey: Uint8Array): Node {
    const n: Node = { partitioned: false, holding: new Set(), owner: '', stratbox: undefined as unknown as Stratbox };
    const hang = <T>(call: () => Promise<T>) => (n.partitioned ? new Promise<T>(() => {}) : call());
    const store: Store = {
      ...base,
      close: async () => {},
      deployments: {
        ...base.deployments,
        acquireLease: (...args) => hang(() => base.deployments.acquireLease(...args)),
        renewLease: (...args) => hang(() => base.deployments.renewLease(...args)),
      },
    };
    const silent = createSilentLogger();
    const logger = {
      ...silent,
      info(message: string, fields?: Record<string, unknown>) {
        if (message === 'deployment lease acquired') n.holding.add(fields!.deploymentId as string);
        if (message === 'deployment lease released') n.holding.delete(fields!.deploymentId as string);
        if (fields?.owner) n.owner = fields.owner as string;
      },
      warn(message: string, fields?: Record<string, unknown>) {
        if (message === 'deployment lease lost') n.holding.delete(fields!.deploymentId as string);
      },
    };
    n.stratbox = createStratbox({
      store,
      logger,
      masterKey,
      workerConcurrency: 0,
      deployments: { leaseMs: LEASE_MS, scanIntervalMs: 100, pollIntervalMs: 50 },
    });
    nodes.push(n);
    return n;
  }

  async function setup() {
    base = createMemoryStore();
    const key = randomBytes(32);
    const a = node(key);
    const b = node(key);
    const { userId } = await a.stratbox.users.createUser('alice');
    const strategy = await a.stratbox.strategies.create(userId, { name: 'idle', description: '', source: SOURCE, marketType: 'LINEAR' });
    const credential = await a.stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    return { a, b, userId, strategyId: strategy.id, credentialId: credential.id };
  }

  const runningOn = (n: Node, id: string) => n.holding.has(id);

  async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, watch?: () => void) {
    const start = Date.now();
    while (!(await check())) {
      watch?.();
      if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
      await sleep(5);
    }
  }

  it('runs a deployment in one process only; a partitioned holder halts before its lease expires and the other takes over', async () => {
    const { a, b, userId, strategyId, credentialId } = await setup();
    const created = await a.stratbox.deployments.create(userId, { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} });
    await a.stratbox.start();
    await waitFor(
      'the deployment to run on A',
      async () => runningOn(a, created.id) && (await a.stratbox.deployments.get(userId, created.id)).status === 'running',
      10_000,
    );
    await b.stratbox.start();
    // B sees it at every scan but never runs it while A holds the lease.
    await sleep(3 * LEASE_MS);
    expect(runningOn(b, created.id)).toBe(false);
    expect(runningOn(a, created.id)).toBe(true);

    const never = () => expect(runningOn(a, created.id) && runningOn(b, created.id)).toBe(false);
    const partitionedAt = Date.now();
    a.partitioned = true;
    await waitFor('A to halt on its own', () => !runningOn(a, created.id), LEASE_MS, never);
    // Self-fenced at 2/3 of the lease after its last renewal, so before the lease can expire.
    expect(Date.now() - partitionedAt).toBeLessThan(LEASE_MS);
    await waitFor('B to take over', () => runningOn(b, created.id), LEASE_MS + 100 + 2000, never);
    // A, still cut off, never runs it again; the deployment stays running, resumed on B.
    for (let i = 0; i < 20; i++) {
      never();
      await sleep(LEASE_MS / 10);
    }
    expect(runningOn(a, created.id)).toBe(false);
    expect((await b.stratbox.deployments.get(userId, created.id)).status).toBe('running');
    await waitFor(
      'the deployment to resume on B',
      async () => (await b.stratbox.deployments.logs(userId, created.id, {})).some((l) => l.message.startsWith('Deployment resumed after a restart')),
      5000,
    );
  }, 30_000);

  it('a holder whose lease another process took halts at its next renewal; a closed process hands over at once', async () => {
    const { a, b, userId, strategyId, credentialId } = await setup();
    const created = await a.stratbox.deployments.create(userId, { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} });
    await a.stratbox.start();
    await waitFor('the deployment to run on A', () => runningOn(a, created.id), 10_000);
    // Another owner takes the lease (as after an expiry A did not notice).
    await base.deployments.releaseLease(created.id, a.owner);
    const now = Date.now();
    expect(await base.deployments.acquireLease(created.id, 'someone-else', new Date(now + 60_000).toISOString(), new Date(now).toISOString())).toBe(true);
    await waitFor('A to halt', () => !runningOn(a, created.id), LEASE_MS);
    await base.deployments.releaseLease(created.id, 'someone-else');
    await waitFor('A to run it again', () => runningOn(a, created.id), 2000);

    // B takes over right after A closes (at its next scan), without waiting for the lease to expire.
    await b.stratbox.start();
    await sleep(200);
    expect(runningOn(b, created.id)).toBe(false);
    await a.stratbox.close();
    const closedAt = Date.now();
    expect(runningOn(a, created.id)).toBe(false);
    await waitFor('B to take over', () => runningOn(b, created.id), 1000);
    expect(Date.now() - closedAt).toBeLessThan(LEASE_MS / 2);
  }, 30_000);
});
