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
/** A lease no test outlives: a takeover under it can only follow a release. */
const LONG_LEASE_MS = 120_000;
/** Generous: what these waits wait for comes within a lease or a scan (100 ms) on an idle machine. */
const WAIT_MS = 20_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A lease event of a node, in the order all nodes logged them. */
interface LeaseEvent {
  node: 'a' | 'b';
  event: 'acquired' | 'lost' | 'released';
  deploymentId: string;
  reason?: string;
}

interface Node {
  stratbox: Stratbox;
  /** While true, this node's lease calls never answer (a partition from the database). */
  partitioned: boolean;
  /** Deployments whose lease this node holds, from its log: acquired, until lost or released. */
  holding: Set<string>;
  owner: string;
  /** Acquire attempts the store refused (another process held the lease): one per scan that saw the deployment. */
  refusedAcquires: number;
}

describe('deployment leases across processes', () => {
  const nodes: Node[] = [];
  let base: Store;
  const events: LeaseEvent[] = [];

  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.stratbox.close()));
    await base?.close();
    events.length = 0;
  });

  function node(name: LeaseEvent['node'], masterKey: Uint8Array, leaseMs: number): Node {
    const n: Node = { partitioned: false, holding: new Set(), owner: '', refusedAcquires: 0, stratbox: undefined as unknown as Stratbox };
    const hang = <T>(call: () => Promise<T>) => (n.partitioned ? new Promise<T>(() => {}) : call());
    const store: Store = {
      ...base,
      close: async () => {},
      deployments: {
        ...base.deployments,
        acquireLease: (...args) =>
          hang(async () => {
            const ok = await base.deployments.acquireLease(...args);
            if (!ok) n.refusedAcquires++;
            return ok;
          }),
        renewLease: (...args) => hang(() => base.deployments.renewLease(...args)),
      },
    };
    const silent = createSilentLogger();
    const record = (event: LeaseEvent['event'], fields: Record<string, unknown>) =>
      events.push({ node: name, event, deploymentId: fields.deploymentId as string, ...(fields.reason ? { reason: fields.reason as string } : {}) });
    const logger = {
      ...silent,
      info(message: string, fields?: Record<string, unknown>) {
        if (message === 'deployment lease acquired') {
          n.holding.add(fields!.deploymentId as string);
          record('acquired', fields!);
        }
        if (message === 'deployment lease released') {
          n.holding.delete(fields!.deploymentId as string);
          record('released', fields!);
        }
        if (fields?.owner) n.owner = fields.owner as string;
      },
      warn(message: string, fields?: Record<string, unknown>) {
        if (message === 'deployment lease lost') {
          n.holding.delete(fields!.deploymentId as string);
          record('lost', fields!);
        }
      },
    };
    n.stratbox = createStratbox({
      store,
      logger,
      masterKey,
      workerConcurrency: 0,
      deployments: { leaseMs, scanIntervalMs: 100, pollIntervalMs: 50 },
    });
    nodes.push(n);
    return n;
  }

  async function setup(leaseMs = LEASE_MS) {
    base = createMemoryStore();
    const key = randomBytes(32);
    const a = node('a', key, leaseMs);
    const b = node('b', key, leaseMs);
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
      WAIT_MS,
    );
    await b.stratbox.start();
    // B sees it at every scan (the store refuses it the lease) but never runs it while A holds the lease.
    await waitFor('B to try three scans', () => b.refusedAcquires >= 3, WAIT_MS);
    expect(runningOn(b, created.id)).toBe(false);
    expect(runningOn(a, created.id)).toBe(true);

    const never = () => expect(runningOn(a, created.id) && runningOn(b, created.id)).toBe(false);
    a.partitioned = true;
    await waitFor('B to take over', () => runningOn(b, created.id), WAIT_MS, never);
    // A halted on its own (its fence: no renewal got through in 2/3 of the lease), before B could
    // take the lease, which the store gives only once it expired: the order of the two logs, not a stopwatch.
    const ofThis = events.filter((e) => e.deploymentId === created.id);
    expect(ofThis.slice(-2)).toEqual([
      { node: 'a', event: 'lost', deploymentId: created.id, reason: expect.stringMatching(/not renewed within/) },
      { node: 'b', event: 'acquired', deploymentId: created.id },
    ]);
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
      WAIT_MS,
    );
  }, 60_000);

  it('a holder whose lease another process took halts at its next renewal', async () => {
    const { a, userId, strategyId, credentialId } = await setup();
    const created = await a.stratbox.deployments.create(userId, { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} });
    await a.stratbox.start();
    await waitFor('the deployment to run on A', () => runningOn(a, created.id), WAIT_MS);
    // Another owner takes the lease (as after an expiry A did not notice).
    await base.deployments.releaseLease(created.id, a.owner);
    const now = Date.now();
    expect(await base.deployments.acquireLease(created.id, 'someone-else', new Date(now + 60_000).toISOString(), new Date(now).toISOString())).toBe(true);
    await waitFor('A to halt', () => !runningOn(a, created.id), WAIT_MS);
    // Halted because its renewal was refused, not by its fence (renewals kept getting answers).
    expect(events.at(-1)).toEqual({ node: 'a', event: 'lost', deploymentId: created.id, reason: expect.stringMatching(/another process took it/) });
    await base.deployments.releaseLease(created.id, 'someone-else');
    await waitFor('A to run it again', () => runningOn(a, created.id), WAIT_MS);
  }, 60_000);

  it('a closed process hands its deployments over at once, without their lease expiring', async () => {
    // A lease longer than the test: B can only get it because A released it.
    const { a, b, userId, strategyId, credentialId } = await setup(LONG_LEASE_MS);
    const created = await a.stratbox.deployments.create(userId, { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} });
    await a.stratbox.start();
    await waitFor('the deployment to run on A', () => runningOn(a, created.id), WAIT_MS);
    await b.stratbox.start();
    await waitFor('B to try two scans', () => b.refusedAcquires >= 2, WAIT_MS);
    expect(runningOn(b, created.id)).toBe(false);
    await a.stratbox.close();
    expect(runningOn(a, created.id)).toBe(false);
    await waitFor('B to take over', () => runningOn(b, created.id), WAIT_MS);
    expect(events.filter((e) => e.deploymentId === created.id).map((e) => `${e.node} ${e.event}`)).toEqual(['a acquired', 'a released', 'b acquired']);
  }, 60_000);
});
