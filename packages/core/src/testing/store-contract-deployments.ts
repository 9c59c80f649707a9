import { describe, expect, it } from 'vitest';
import type { DeploymentLogRecord, DeploymentRecord, OrderRecord, Store } from '../ports/store.js';
import { at, uid } from './contract-fixtures.js';

/*
 * The Store contract of the deployment lifecycle (transition, update, delete, listByStatus),
 * of deployment leases and of deployment logs, run by `describeStoreContract` with its shared store and users.
 */

export type DeploymentLifecycleContext = () => { store: Store; userId: string; otherUserId: string };

function deployment(userId: string, overrides: Partial<DeploymentRecord> = {}): DeploymentRecord {
  return {
    id: uid('dep'),
    userId,
    strategyId: uid('str'),
    strategyVersion: 1,
    credentialId: uid('cred'),
    symbols: ['BTC/USDT:USDT'],
    params: { fast: '3' },
    status: 'starting',
    error: null,
    createdAt: at(0),
    updatedAt: at(0),
    startedAt: null,
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

function order(d: DeploymentRecord): OrderRecord {
  return {
    id: uid('ord'),
    userId: d.userId,
    deploymentId: d.id,
    clientOrderId: uid('sbx')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 30),
    exchangeOrderId: null,
    symbol: 'BTC/USDT:USDT',
    side: 'buy',
    type: 'market',
    quantity: 1,
    price: null,
    stopPrice: null,
    reduceOnly: false,
    status: 'pending',
    filledQuantity: 0,
    averagePrice: null,
    fee: 0,
    createdAt: at(0),
    updatedAt: at(0),
  };
}

const line = (d: DeploymentRecord, seconds: number, message: string, level: DeploymentLogRecord['level'] = 'info'): DeploymentLogRecord => ({
  deploymentId: d.id,
  userId: d.userId,
  timestamp: at(seconds),
  level,
  message,
});

export function describeDeploymentLifecycleContract(context: DeploymentLifecycleContext): void {
  describe('deployments lifecycle', () => {
    it('transition applies the patch only from the given statuses and returns the record', async () => {
      const { store, userId } = context();
      const d = deployment(userId);
      await store.deployments.insert(d);
      expect(await store.deployments.transition(d.id, ['running'], { status: 'stopping' })).toBeNull();
      const running = await store.deployments.transition(d.id, ['starting'], { status: 'running', startedAt: at(5), updatedAt: at(5) });
      expect(running).toEqual({ ...d, status: 'running', startedAt: at(5), updatedAt: at(5) });
      const failed = await store.deployments.transition(d.id, ['starting', 'running'], {
        status: 'failed',
        error: { code: 'STRATEGY_ERROR', message: 'boom' },
        stoppedAt: at(6),
      });
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'STRATEGY_ERROR', message: 'boom' }, stoppedAt: at(6), startedAt: at(5) });
      expect(await store.deployments.findById(userId, d.id)).toEqual(failed);
      expect(await store.deployments.transition(uid('dep'), ['starting'], { status: 'running' })).toBeNull();
    });

    it('keeps risk limits, a halt, the pre-flight report and the reconciliation state, and patches and clears them', async () => {
      const { store, userId } = context();
      const risk = { maxDrawdown: 0.2, dailyLossLimit: 0.05, maxPositionNotional: 1000, maxOrdersPerMinute: 30, onBreach: 'close' as const };
      const d = deployment(userId, { status: 'running', risk });
      await store.deployments.insert(d);
      expect(await store.deployments.findById(userId, d.id)).toEqual(d);
      const halt = { reason: 'maxDrawdown' as const, message: 'Equity fell 21 % below its peak', value: 0.21, limit: 0.2, at: at(7) };
      const preflight = {
        ok: true,
        checkedAt: at(1),
        clockOffsetMs: -12,
        checks: [{ name: 'authentication', ok: true, message: 'The key authenticates and may trade' }],
      };
      const reconciliation = {
        lastRunAt: at(8),
        runs: 3,
        mismatches: [{ kind: 'position' as const, symbol: 'BTC/USDT:USDT', orderId: null, message: 'Long 0.5 on the exchange, 0.2 from fills', at: at(8) }],
        stream: 'polling' as const,
      };
      const halted = await store.deployments.transition(d.id, ['running'], { status: 'halted', halt, preflight, reconciliation, updatedAt: at(7) });
      expect(halted).toEqual({ ...d, status: 'halted', halt, preflight, reconciliation, updatedAt: at(7) });
      expect(await store.deployments.findById(userId, d.id)).toEqual(halted);
      const restarted = await store.deployments.update(d.id, { status: 'starting', halt: null, risk: null });
      expect(restarted).toEqual({ ...halted, status: 'starting', halt: null, risk: null });
      expect(await store.deployments.countActive(userId)).toBeGreaterThanOrEqual(1);
    });

    it('keeps the leverage and margin mode it was created with, through other patches', async () => {
      const { store, userId } = context();
      const d = deployment(userId, { leverage: 3, marginMode: 'isolated' });
      await store.deployments.insert(d);
      expect(await store.deployments.findById(userId, d.id)).toEqual(d);
      const running = await store.deployments.transition(d.id, ['starting'], { status: 'running', startedAt: at(2), updatedAt: at(2) });
      expect(running).toMatchObject({ leverage: 3, marginMode: 'isolated' });
      const plain = deployment(userId);
      await store.deployments.insert(plain);
      expect(await store.deployments.findById(userId, plain.id)).toMatchObject({ leverage: null, marginMode: null });
    });

    it("keeps the risk guard's state, patches it without touching the rest, and clears it", async () => {
      const { store, userId } = context();
      const d = deployment(userId, { status: 'running' });
      await store.deployments.insert(d);
      const riskState = { peakEquity: 10_320.5, peakAt: at(3), day: '2026-03-01', dayStartEquity: 10_000 };
      expect(await store.deployments.update(d.id, { riskState })).toEqual({ ...d, riskState });
      expect(await store.deployments.findById(userId, d.id)).toEqual({ ...d, riskState });
      expect(await store.deployments.update(d.id, { riskState: null })).toEqual(d);
    });

    it('keeps the positions accepted at a restart, patches them without touching the rest, and clears them', async () => {
      const { store, userId } = context();
      const d = deployment(userId, { status: 'running' });
      await store.deployments.insert(d);
      const acceptedPositions = { 'BTC/USDT:USDT': 0.004, 'ETH/USDT:USDT': -1.25 };
      expect(await store.deployments.update(d.id, { acceptedPositions })).toEqual({ ...d, acceptedPositions });
      expect(await store.deployments.findById(userId, d.id)).toEqual({ ...d, acceptedPositions });
      expect(await store.deployments.update(d.id, { status: 'halted' })).toEqual({ ...d, status: 'halted', acceptedPositions });
      expect(await store.deployments.update(d.id, { acceptedPositions: null })).toEqual({ ...d, status: 'halted' });
    });

    it('counts a halted deployment as active', async () => {
      const { store, otherUserId } = context();
      const before = await store.deployments.countActive(otherUserId);
      const d = deployment(otherUserId, { status: 'halted' });
      await store.deployments.insert(d);
      expect(await store.deployments.countActive(otherUserId)).toBe(before + 1);
      expect((await store.deployments.listActive(otherUserId)).map((x) => x.id)).toContain(d.id);
      await store.deployments.delete(otherUserId, d.id);
    });

    it('of concurrent transitions from one status exactly one wins', async () => {
      const { store, userId } = context();
      const d = deployment(userId, { status: 'running' });
      await store.deployments.insert(d);
      const results = await Promise.all([
        store.deployments.transition(d.id, ['running'], { status: 'stopping' }),
        store.deployments.transition(d.id, ['running'], { status: 'starting' }),
        store.deployments.transition(d.id, ['running'], { status: 'failed' }),
      ]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      const winner = results.find((r) => r !== null)!;
      expect((await store.deployments.findById(userId, d.id))!.status).toBe(winner.status);
    });

    it('update changes fields whatever the status and can clear error and stoppedAt', async () => {
      const { store, userId } = context();
      const d = deployment(userId, { status: 'failed', error: { code: 'X', message: 'y' }, stoppedAt: at(3) });
      await store.deployments.insert(d);
      const updated = await store.deployments.update(d.id, { status: 'starting', error: null, stoppedAt: null, updatedAt: at(4) });
      expect(updated).toEqual({ ...d, status: 'starting', error: null, stoppedAt: null, updatedAt: at(4) });
      expect(await store.deployments.update(uid('dep'), { status: 'running' })).toBeNull();
    });

    it("delete removes the user's deployment with its orders and logs, and never another user's", async () => {
      const { store, userId, otherUserId } = context();
      const d = deployment(userId);
      const keep = deployment(userId);
      for (const x of [d, keep]) await store.deployments.insert(x);
      const o = order(d);
      const kept = order(keep);
      for (const x of [o, kept]) await store.orders.insert(x);
      await store.deploymentLogs.append([line(d, 1, 'gone'), line(keep, 1, 'kept')]);
      expect(await store.deployments.delete(otherUserId, d.id)).toBe(false);
      expect(await store.deployments.findById(userId, d.id)).not.toBeNull();
      expect(await store.deployments.delete(userId, d.id)).toBe(true);
      expect(await store.deployments.findById(userId, d.id)).toBeNull();
      expect(await store.orders.findById(userId, o.id)).toBeNull();
      expect(await store.orders.findByClientOrderId(o.clientOrderId)).toBeNull();
      expect(await store.deploymentLogs.list(userId, d.id, { limit: 10 })).toEqual([]);
      expect(await store.deployments.delete(userId, d.id)).toBe(false);
      expect(await store.orders.findById(userId, kept.id)).toEqual(kept);
      expect((await store.deploymentLogs.list(userId, keep.id, { limit: 10 })).map((l) => l.message)).toEqual(['kept']);
    });

    it('listByStatus lists the given statuses across users, oldest first', async () => {
      const { store, userId, otherUserId } = context();
      const old = (s: number) => new Date(Date.UTC(1989, 0, 1) + s * 1000).toISOString();
      const a = deployment(userId, { status: 'running', createdAt: old(2) });
      const b = deployment(otherUserId, { status: 'stopping', createdAt: old(1) });
      const c = deployment(userId, { status: 'stopped', createdAt: old(0) });
      for (const x of [a, b, c]) await store.deployments.insert(x);
      const listed = await store.deployments.listByStatus(['running', 'stopping'], 10_000);
      const mine = listed.filter((x) => [a.id, b.id, c.id].includes(x.id));
      expect(mine).toEqual([b, a]);
      expect(await store.deployments.listByStatus([], 10)).toEqual([]);
    });

    it('listByStatus pages oldest first strictly after a position, ties broken by id', async () => {
      const { store, userId, otherUserId } = context();
      const old = (s: number) => new Date(Date.UTC(1988, 0, 1) + s * 1000).toISOString();
      const made = [0, 1, 1, 1, 2, 3].map((s, i) => deployment(i % 2 ? otherUserId : userId, { status: 'running', createdAt: old(s) }));
      for (const x of made) await store.deployments.insert(x);
      const ids = new Set(made.map((x) => x.id));
      const expected = [...made].sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? -1 : 1) : x.createdAt < y.createdAt ? -1 : 1));
      // Paged by 2 from just before them (rows of other tests are newer, never between).
      const seen: DeploymentRecord[] = [];
      let after = { createdAt: old(-1), id: '' };
      while (seen.length < made.length) {
        const page = await store.deployments.listByStatus(['running'], 2, after);
        if (page.length === 0) break;
        seen.push(...page.filter((x) => ids.has(x.id)));
        after = { createdAt: page[page.length - 1]!.createdAt, id: page[page.length - 1]!.id };
      }
      expect(seen).toEqual(expected);
      const fromMiddle = await store.deployments.listByStatus(['running'], 3, { createdAt: expected[1]!.createdAt, id: expected[1]!.id });
      expect(fromMiddle).toEqual(expected.slice(2, 5));
    });

    it("listByStrategy lists the user's deployments of a strategy since a time, any status, oldest first, never another user's", async () => {
      const { store, userId, otherUserId } = context();
      const strategyId = uid('str');
      const [tieA, tieB] = [uid('dep'), uid('dep')].sort();
      const before = deployment(userId, { strategyId, createdAt: at(9) });
      const first = deployment(userId, { id: tieB!, strategyId, status: 'stopped', createdAt: at(10) });
      const tie = deployment(userId, { id: tieA!, strategyId, status: 'failed', createdAt: at(10) });
      const last = deployment(userId, { strategyId, status: 'running', createdAt: at(12) });
      const theirs = deployment(otherUserId, { strategyId, createdAt: at(11) });
      const otherStrategy = deployment(userId, { createdAt: at(11) });
      for (const x of [last, before, first, tie, theirs, otherStrategy]) await store.deployments.insert(x);
      expect(await store.deployments.listByStrategy(userId, strategyId, { createdFrom: at(10), limit: 10 })).toEqual([tie, first, last]);
      expect(await store.deployments.listByStrategy(userId, strategyId, { createdFrom: at(10), limit: 2 })).toEqual([tie, first]);
      expect(await store.deployments.listByStrategy(otherUserId, strategyId, { createdFrom: at(0), limit: 10 })).toEqual([theirs]);
      expect(await store.deployments.listByStrategy(userId, strategyId, { createdFrom: at(13), limit: 10 })).toEqual([]);
    });
  });

  describe('users.lock', () => {
    /** One create as the deployment service makes it: lock the user, count, insert if under `limit`. */
    const createUnder = (store: Store, userId: string, limit: number) =>
      store.transaction(async (tx) => {
        await tx.users.lock(userId);
        if ((await tx.deployments.countActive(userId)) >= limit) return false;
        // Each on its own credential: no row the transactions share but the user's lock.
        await tx.deployments.insert(deployment(userId, { status: 'starting' }));
        return true;
      });

    it('serializes concurrent transactions of one user: of 8 count-then-insert under a limit of 1 exactly one inserts', async () => {
      const { store } = context();
      // A user id with no user row, as with a host's own authentication.
      const userId = uid('usr');
      const results = await Promise.all(Array.from({ length: 8 }, () => createUnder(store, userId, 1)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.deployments.countActive(userId)).toBe(1);
    });

    it('is released when the transaction rolls back, and does not hold other users', async () => {
      const { store, userId, otherUserId } = context();
      const failed = store.transaction(async (tx) => {
        await tx.users.lock(userId);
        throw new Error('rolled back');
      });
      await expect(failed).rejects.toThrow('rolled back');
      const fresh = uid('usr');
      expect(await Promise.all([createUnder(store, fresh, 2), createUnder(store, fresh, 2), createUnder(store, otherUserId + '-x', 1)])).toEqual([
        true,
        true,
        true,
      ]);
      expect(await store.transaction(async (tx) => (await tx.users.lock(userId), 'locked again'))).toBe('locked again');
      await store.users.lock(userId);
    });
  });

  describe('deployment leases', () => {
    it('acquireLease takes a free lease, extends its own, and refuses an unexpired lease of another owner', async () => {
      const { store, userId } = context();
      const d = deployment(userId, { status: 'running' });
      await store.deployments.insert(d);
      expect(await store.deployments.acquireLease(d.id, 'owner-a', at(15), at(0))).toBe(true);
      expect(await store.deployments.acquireLease(d.id, 'owner-b', at(30), at(10))).toBe(false);
      // Equal to the expiry is not expired yet.
      expect(await store.deployments.acquireLease(d.id, 'owner-b', at(30), at(15))).toBe(false);
      expect(await store.deployments.acquireLease(d.id, 'owner-a', at(25), at(10))).toBe(true);
      expect(await store.deployments.acquireLease(d.id, 'owner-b', at(35), at(20))).toBe(false);
      expect(await store.deployments.acquireLease(uid('dep'), 'owner-a', at(15), at(0))).toBe(false);
      // The lease does not show in the record, and status changes leave it alone.
      expect(await store.deployments.findById(userId, d.id)).toEqual(d);
      expect(await store.deployments.transition(d.id, ['running'], { status: 'starting' })).toMatchObject({ status: 'starting' });
      expect(await store.deployments.acquireLease(d.id, 'owner-b', at(35), at(20))).toBe(false);
    });

    it('an expired lease can be taken by another owner, and its former owner can no longer renew it', async () => {
      const { store, userId } = context();
      const d = deployment(userId, { status: 'running' });
      await store.deployments.insert(d);
      expect(await store.deployments.acquireLease(d.id, 'owner-a', at(15), at(0))).toBe(true);
      expect(await store.deployments.acquireLease(d.id, 'owner-b', at(31), at(16))).toBe(true);
      expect(await store.deployments.renewLease(d.id, 'owner-a', at(32), at(17))).toBe(false);
      expect(await store.deployments.acquireLease(d.id, 'owner-a', at(32), at(17))).toBe(false);
      expect(await store.deployments.renewLease(d.id, 'owner-b', at(40), at(17))).toBe(true);
      expect(await store.deployments.acquireLease(d.id, 'owner-a', at(45), at(35))).toBe(false);
    });

    it('renewLease extends only an unexpired lease of the same owner', async () => {
      const { store, userId } = context();
      const d = deployment(userId, { status: 'running' });
      await store.deployments.insert(d);
      expect(await store.deployments.renewLease(d.id, 'owner-a', at(15), at(0))).toBe(false);
      expect(await store.deployments.acquireLease(d.id, 'owner-a', at(15), at(0))).toBe(true);
      expect(await store.deployments.renewLease(d.id, 'owner-b', at(20), at(5))).toBe(false);
      expect(await store.deployments.renewLease(d.id, 'owner-a', at(20), at(5))).toBe(true);
      // Renewed to 20: another owner still cannot take it at 16.
      expect(await store.deployments.acquireLease(d.id, 'owner-b', at(31), at(16))).toBe(false);
      // Expired (20 < 21): no renewal, even by its owner.
      expect(await store.deployments.renewLease(d.id, 'owner-a', at(36), at(21))).toBe(false);
      expect(await store.deployments.renewLease(uid('dep'), 'owner-a', at(15), at(0))).toBe(false);
    });

    it('releaseLease frees only a lease the owner holds', async () => {
      const { store, userId } = context();
      const d = deployment(userId, { status: 'running' });
      await store.deployments.insert(d);
      expect(await store.deployments.acquireLease(d.id, 'owner-a', at(15), at(0))).toBe(true);
      await store.deployments.releaseLease(d.id, 'owner-b');
      expect(await store.deployments.acquireLease(d.id, 'owner-b', at(16), at(1))).toBe(false);
      await store.deployments.releaseLease(d.id, 'owner-a');
      expect(await store.deployments.renewLease(d.id, 'owner-a', at(17), at(2))).toBe(false);
      expect(await store.deployments.acquireLease(d.id, 'owner-b', at(17), at(2))).toBe(true);
      await store.deployments.releaseLease(uid('dep'), 'owner-b');
    });

    it('of 10 concurrent acquirers exactly one wins', async () => {
      const { store, userId } = context();
      const d = deployment(userId, { status: 'running' });
      await store.deployments.insert(d);
      const owners = Array.from({ length: 10 }, (_, i) => `owner-${i}`);
      const results = await Promise.all(owners.map((o) => store.deployments.acquireLease(d.id, o, at(15), at(0))));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = owners[results.indexOf(true)]!;
      expect(await store.deployments.renewLease(d.id, winner, at(20), at(5))).toBe(true);
      for (const o of owners.filter((x) => x !== winner)) expect(await store.deployments.renewLease(d.id, o, at(20), at(5))).toBe(false);
      // Once it expired, again exactly one of them takes it over.
      const again = await Promise.all(owners.map((o) => store.deployments.acquireLease(d.id, o, at(40), at(25))));
      expect(again.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('deploymentLogs', () => {
    it('lists oldest first, in append order for equal timestamps, with since and limit, scoped to the owner', async () => {
      const { store, userId, otherUserId } = context();
      const d = deployment(userId);
      await store.deployments.insert(d);
      await store.deploymentLogs.append([line(d, 2, 'third'), line(d, 1, 'first', 'debug')]);
      await store.deploymentLogs.append([line(d, 1, 'second', 'warn'), line(d, 3, 'fourth', 'error')]);
      const all = await store.deploymentLogs.list(userId, d.id, { limit: 100 });
      expect(all.map((l) => l.message)).toEqual(['first', 'second', 'third', 'fourth']);
      expect(all[0]).toEqual({ ...line(d, 1, 'first', 'debug'), seq: expect.any(Number) });
      expect(all.map((l) => l.seq)).toEqual([...new Set(all.map((l) => l.seq))]);
      expect((await store.deploymentLogs.list(userId, d.id, { limit: 2 })).map((l) => l.message)).toEqual(['first', 'second']);
      expect((await store.deploymentLogs.list(userId, d.id, { since: at(2), limit: 100 })).map((l) => l.message)).toEqual(['third', 'fourth']);
      expect(await store.deploymentLogs.list(otherUserId, d.id, { limit: 100 })).toEqual([]);
      await store.deploymentLogs.append([]);
    });

    it('pages strictly after a position (timestamp, seq): every entry once, in order, with since, ties in append order', async () => {
      const { store, userId, otherUserId } = context();
      const d = deployment(userId);
      await store.deployments.insert(d);
      // 3 entries per second over 7 seconds, appended out of time order, with equal timestamps
      const seconds = [4, 0, 6, 2, 1, 5, 3];
      for (const s of seconds) await store.deploymentLogs.append([0, 1, 2].map((i) => line(d, s, `${s}.${i}`)));
      const expected = [0, 1, 2, 3, 4, 5, 6].flatMap((s) => [0, 1, 2].map((i) => `${s}.${i}`));
      for (const limit of [1, 2, 4, 21, 50]) {
        const read: string[] = [];
        let after: { timestamp: string; seq: number } | undefined;
        for (;;) {
          const page = await store.deploymentLogs.list(userId, d.id, after ? { limit, after } : { limit });
          read.push(...page.map((l) => l.message));
          const last = page[page.length - 1];
          if (page.length < limit || !last) break;
          after = { timestamp: last.timestamp, seq: last.seq };
        }
        expect(read).toEqual(expected);
      }
      const all = await store.deploymentLogs.list(userId, d.id, { limit: 100 });
      const mid = all[7]!; // 2.1
      expect((await store.deploymentLogs.list(userId, d.id, { after: mid, limit: 3 })).map((l) => l.message)).toEqual(['2.2', '3.0', '3.1']);
      // since and after together: the later bound applies
      expect((await store.deploymentLogs.list(userId, d.id, { since: at(5), after: mid, limit: 2 })).map((l) => l.message)).toEqual(['5.0', '5.1']);
      expect((await store.deploymentLogs.list(userId, d.id, { since: at(1), after: mid, limit: 1 })).map((l) => l.message)).toEqual(['2.2']);
      expect(await store.deploymentLogs.list(userId, d.id, { after: all[all.length - 1]!, limit: 10 })).toEqual([]);
      expect(await store.deploymentLogs.list(otherUserId, d.id, { after: mid, limit: 10 })).toEqual([]);
    });
  });
}
