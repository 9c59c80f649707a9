import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExchangeGateway } from '@stratbox/core';
import type { StratboxClient, StratboxClientError } from '@stratbox/client';
import { startWsTestService, type WsTestService } from './harness/ws-service.js';
import { acceleratedClock } from './harness/accelerated-clock.js';
import { sleep, waitFor } from './harness/deferred.js';
import { failure } from './harness/client-errors.js';

/*
 * Live deployments over real HTTP and WebSocket, on SQLite, with real sandbox child processes
 * and the built-in `paper` exchange filling against synthetic candles. The clock runs 400 times
 * faster than real time, so a '1m' strategy sees a closed candle every 150 ms.
 */

const SYMBOLS = ['BTC/USDT:USDT', 'ETH/USDT:USDT'];

/** Always in the market on the side of the SMA cross, plus one far-away limit order per symbol that never fills. */
const SMA = `
export const meta = {
  timeframe: '1m',
  warmup: 5,
  params: { fast: { type: 'int', default: 2, min: 1 }, slow: { type: 'int', default: 5 }, qty: { type: 'float', default: 0.01 } },
};
const parked = {};
export function onCandle(ctx, candle) {
  const s = candle.symbol;
  if (!parked[s]) parked[s] = ctx.buy(s, { type: 'limit', price: Math.round(candle.close * 0.5), quantity: ctx.params.qty, tag: 'parked' });
  const fast = ctx.indicators.sma(s, ctx.params.fast);
  const slow = ctx.indicators.sma(s, ctx.params.slow);
  const want = fast >= slow ? 'long' : 'short';
  const p = ctx.position(s);
  if (p && p.side === want) return;
  if (ctx.orders(s).some((o) => o.type === 'market')) return;
  if (p) ctx.close(s);
  if (want === 'long') ctx.buy(s, { quantity: ctx.params.qty, tag: 'entry' });
  else ctx.sell(s, { quantity: ctx.params.qty, tag: 'entry' });
}
export function onOrder(ctx, order) {
  ctx.log('onOrder', order.id, order.status, order.type, order.side, order.symbol, order.tag);
}
`;

describe('live deployments on the paper exchange', () => {
  let svc: WsTestService;
  let alice: { userId: string; client: StratboxClient };
  let bob: { userId: string; client: StratboxClient };
  let strategyId: string;
  let credentialId: string;

  beforeAll(async () => {
    svc = await startWsTestService({
      clock: acceleratedClock(400),
      deployments: { pollIntervalMs: 40 },
      billing: { plans: { free: { limits: { deployments: 2 } } } },
    });
    alice = await svc.newUser('alice');
    bob = await svc.newUser('bob');
    strategyId = (await alice.client.strategies.create({ body: { name: 'SMA both ways', source: SMA } })).id;
    credentialId = (await alice.client.credentials.create({ body: { exchange: 'paper', label: 'paper' } })).id;
  }, 60_000);

  afterAll(async () => {
    await svc?.close();
  });

  async function paperGateway(): Promise<ExchangeGateway> {
    const credential = await svc.stratbox.credentials.openSecrets(alice.userId, credentialId);
    return svc.stratbox.exchanges.acquire(credential, 'LINEAR');
  }

  it('trades two symbols, shows its orders on the WebSocket channel and in the logs, and stop closes everything', async () => {
    const created = await alice.client.deployments.create({ body: { strategyId, credentialId, symbols: SYMBOLS, params: { slow: '4' } } });
    expect(created).toMatchObject({ status: 'starting', symbols: SYMBOLS, params: { slow: '4' }, strategyVersion: 1, error: null, startedAt: null });
    const events: Array<{ deploymentId: string; order: { id: string; symbol: string; status: string; side: string; type: string } }> = [];
    alice.client.deployments.watchOrders(created.id, (event) => events.push(event));

    const running = await waitFor('running', async () => {
      const d = await alice.client.deployments.get({ params: { id: created.id } });
      return d.status === 'running' ? d : null;
    });
    expect(running.startedAt).not.toBeNull();

    const gateway = await paperGateway();
    // Filled entries on both symbols, and the parked limit orders resting.
    await waitFor('positions on both symbols', async () => (await gateway.fetchPositions(SYMBOLS)).length === 2);
    await waitFor('a filled order event per symbol', async () => SYMBOLS.every((s) => events.some((e) => e.order.symbol === s && e.order.status === 'filled')));
    expect((await gateway.fetchOpenOrders()).map((o) => o.type).sort()).toEqual(['limit', 'limit']);
    expect(events.every((e) => e.deploymentId === created.id)).toBe(true);

    const logs = await alice.client.deployments.logs({ params: { id: created.id } });
    const messages = logs.map((l) => l.message);
    expect(messages.some((m) => m.startsWith('Deployment started'))).toBe(true);
    expect(messages.some((m) => m.startsWith('Order placed: buy') || m.startsWith('Order placed: sell'))).toBe(true);
    expect(messages.some((m) => m.startsWith('Order filled'))).toBe(true);
    expect(messages.some((m) => /^onOrder o\d+ filled market/.test(m))).toBe(true);
    const times = logs.map((l) => l.timestamp);
    expect([...times].sort()).toEqual(times);
    expect(logs.every((l) => ['debug', 'info', 'warn', 'error'].includes(l.level))).toBe(true);
    // since and limit
    const two = await alice.client.deployments.logs({ params: { id: created.id }, query: { limit: 2 } });
    expect(two).toEqual(logs.slice(0, 2));
    const since = logs[logs.length - 1]!.timestamp;
    const later = await alice.client.deployments.logs({ params: { id: created.id }, query: { since } });
    expect(later.every((l) => l.timestamp >= since)).toBe(true);
    expect(later.length).toBeGreaterThan(0);

    const stopped = await alice.client.deployments.stop({ params: { id: created.id } });
    expect(stopped.status).toBe('stopped');
    expect(stopped.stoppedAt).not.toBeNull();
    expect(await gateway.fetchPositions(SYMBOLS)).toEqual([]);
    expect(await gateway.fetchOpenOrders()).toEqual([]);
    const open = await svc.stratbox.store.orders.listOpen(created.id);
    expect(open).toEqual([]);
    await waitFor(
      'the cancellations and the closing fills on the channel',
      async () =>
        events.filter((e) => e.order.status === 'cancelled' && e.order.type === 'limit').length === 2 &&
        SYMBOLS.every((s) => events.some((e) => e.order.symbol === s && e.order.status === 'filled')),
    );
    const afterStop = (await alice.client.deployments.logs({ params: { id: created.id }, query: { limit: 1000 } })).map((l) => l.message);
    expect(afterStop.some((m) => m.startsWith('Closing position'))).toBe(true);
    expect(afterStop[afterStop.length - 1]).toMatch(/^Deployment stopped \(2 position\(s\) closed\)/);

    // Stopped means stopped: no new order after a few more candles.
    const count = (await svc.stratbox.store.orders.listByDeployment(alice.userId, created.id, { limit: 1000 })).length;
    await sleep(500);
    expect((await svc.stratbox.store.orders.listByDeployment(alice.userId, created.id, { limit: 1000 })).length).toBe(count);
    svc.stratbox.exchanges.release(credentialId);

    // Restart from stopped goes back through starting to running; delete stops it and removes it with its logs and orders.
    const restarted = await alice.client.deployments.restart({ params: { id: created.id } });
    expect(restarted.status).toBe('starting');
    await waitFor('running again', async () => (await alice.client.deployments.get({ params: { id: created.id } })).status === 'running');
    await alice.client.deployments.delete({ params: { id: created.id } });
    expect((await failure(alice.client.deployments.get({ params: { id: created.id } }))).status).toBe(404);
    expect((await failure(alice.client.deployments.logs({ params: { id: created.id } }))).status).toBe(404);
    expect(await svc.stratbox.store.orders.listByDeployment(alice.userId, created.id, { limit: 10 })).toEqual([]);
    expect(await svc.stratbox.store.deploymentLogs.list(alice.userId, created.id, { limit: 10 })).toEqual([]);
    expect(await (await paperGateway()).fetchPositions(SYMBOLS)).toEqual([]);
    svc.stratbox.exchanges.release(credentialId);
  }, 90_000);

  it("BOLA: another user can neither see, stop, restart, delete nor read the logs, orders or positions of a deployment, nor deploy with another user's credential", async () => {
    const dep = await alice.client.deployments.create({ body: { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} } });
    const id = dep.id;
    const notFound = async (call: Promise<unknown>) => {
      const error = await failure(call);
      expect(error.status).toBe(404);
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toBe(`Deployment ${id} not found`);
    };
    await notFound(bob.client.deployments.get({ params: { id } }));
    await notFound(bob.client.deployments.stop({ params: { id } }));
    await notFound(bob.client.deployments.restart({ params: { id } }));
    await notFound(bob.client.deployments.delete({ params: { id } }));
    await notFound(bob.client.deployments.logs({ params: { id } }));
    await notFound(bob.client.deployments.orders({ params: { id } }));
    await notFound(bob.client.deployments.positions({ params: { id } }));
    expect((await bob.client.deployments.list()).deployments).toEqual([]);
    const bobStrategy = (await bob.client.strategies.create({ body: { name: 'bob', source: SMA } })).id;
    const cred = await failure(bob.client.deployments.create({ body: { strategyId: bobStrategy, credentialId, symbols: ['BTC/USDT:USDT'], params: {} } }));
    expect(cred.status).toBe(404);
    expect(cred.message).toBe(`Credential ${credentialId} not found`);
    const strat = await failure(bob.client.deployments.create({ body: { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} } }));
    expect(strat.status).toBe(404);
    // Alice's deployment is untouched.
    expect((await alice.client.deployments.get({ params: { id } })).status).not.toBe('stopped');
    await alice.client.deployments.delete({ params: { id } });
  }, 60_000);

  it('a strategy error cancels the open orders and fails the deployment with the reason in error and in the log', async () => {
    const source = `
export const meta = { timeframe: '1m' };
let seen = 0;
export function onCandle(ctx, candle) {
  seen++;
  if (seen === 1) ctx.buy(candle.symbol, { type: 'limit', price: Math.round(candle.close / 2), quantity: 0.01 });
  if (seen === 3) throw new RangeError('bad luck on candle ' + seen);
}
`;
    const sid = (await alice.client.strategies.create({ body: { name: 'throws', source } })).id;
    const dep = await alice.client.deployments.create({ body: { strategyId: sid, credentialId, symbols: ['SOL/USDT:USDT'], params: {} } });
    const failed = await waitFor('failed', async () => {
      const d = await alice.client.deployments.get({ params: { id: dep.id } });
      return d.status === 'failed' ? d : null;
    });
    expect(failed.error).toEqual({ code: 'STRATEGY_ERROR', message: expect.stringMatching(/^RangeError: bad luck on candle 3 \(line 7, column \d+\)$/) });
    expect(failed.stoppedAt).not.toBeNull();
    const logs = (await alice.client.deployments.logs({ params: { id: dep.id }, query: { limit: 1000 } })).filter((l) => l.level === 'error');
    expect(logs.map((l) => l.message)).toEqual([`Deployment failed (STRATEGY_ERROR): ${failed.error!.message}`]);
    expect(await svc.stratbox.store.orders.listOpen(dep.id)).toEqual([]);
    const orders = await svc.stratbox.store.orders.listByDeployment(alice.userId, dep.id, { limit: 10 });
    expect(orders.map((o) => [o.type, o.status])).toEqual([['limit', 'cancelled']]);
    // A failed deployment is not active: its strategy can be deleted once the deployment is gone.
    await alice.client.deployments.delete({ params: { id: dep.id } });
    await alice.client.strategies.delete({ params: { id: sid } });
  }, 60_000);

  it('concurrent stop, restart and delete leave the deployment in one state', async () => {
    const dep = await alice.client.deployments.create({ body: { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} } });
    await waitFor('running', async () => (await alice.client.deployments.get({ params: { id: dep.id } })).status === 'running');
    const results = await Promise.allSettled([
      alice.client.deployments.stop({ params: { id: dep.id } }),
      alice.client.deployments.restart({ params: { id: dep.id } }),
      alice.client.deployments.stop({ params: { id: dep.id } }),
    ]);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as StratboxClientError).status).toBe(409);
    // Whatever won, it settles in one state, and a final stop flattens it.
    const final = await alice.client.deployments.stop({ params: { id: dep.id } });
    expect(final.status).toBe('stopped');
    await sleep(300);
    expect((await alice.client.deployments.get({ params: { id: dep.id } })).status).toBe('stopped');
    const gateway = await paperGateway();
    expect(await gateway.fetchOpenOrders('BTC/USDT:USDT')).toEqual([]);
    expect(await gateway.fetchPositions(['BTC/USDT:USDT'])).toEqual([]);
    svc.stratbox.exchanges.release(credentialId);
    const deletes = await Promise.allSettled([
      alice.client.deployments.delete({ params: { id: dep.id } }),
      alice.client.deployments.delete({ params: { id: dep.id } }),
    ]);
    expect(deletes.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await failure(alice.client.deployments.get({ params: { id: dep.id } }))).status).toBe(404);
  }, 60_000);

  it('bad params answer 400 per parameter and create nothing', async () => {
    const error = await failure(
      alice.client.deployments.create({ body: { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: { fast: 'x', nope: '1' } } }),
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect((error.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual(['params.fast', 'params.nope']);
    expect((await alice.client.deployments.list()).deployments).toEqual([]);
  }, 30_000);

  it('with a live bot limit of 2 the third create answers 402 and creates nothing; one deployment per account and symbol (409); a strategy with an active deployment cannot be deleted', async () => {
    const carol = await svc.newUser('carol');
    const sid = (await carol.client.strategies.create({ body: { name: 'c', source: SMA } })).id;
    const cid = (await carol.client.credentials.create({ body: { exchange: 'paper', label: 'p' } })).id;
    const on = (...symbols: string[]) => ({ body: { strategyId: sid, credentialId: cid, symbols, params: {} } });
    const first = await carol.client.deployments.create(on('BTC/USDT:USDT'));
    // The same account trading the same symbol twice: 409 naming the deployment there, nothing created.
    const clash = await failure(carol.client.deployments.create(on('ETH/USDT:USDT', 'BTC/USDT:USDT')));
    expect(clash.status).toBe(409);
    expect(clash.code).toBe('CONFLICT');
    expect(clash.details).toMatchObject({ deploymentId: first.id, symbol: 'BTC/USDT:USDT' });
    const second = await carol.client.deployments.create(on('ETH/USDT:USDT'));
    const error = await failure(carol.client.deployments.create(on('SOL/USDT:USDT')));
    expect(error.status).toBe(402);
    expect(error.code).toBe('PLAN_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ counter: 'deployments', used: 2, limit: 2 });
    expect((await carol.client.deployments.list()).deployments).toHaveLength(2);
    expect((await carol.client.billing.usage()).deployments).toEqual({ used: 2, limit: 2 });

    const conflict = await failure(carol.client.strategies.delete({ params: { id: sid } }));
    expect(conflict.status).toBe(409);
    expect((await carol.client.strategies.get({ params: { id: sid } })).id).toBe(sid);

    // A stopped deployment frees its slot and its symbols; restarting it needs both again.
    await carol.client.deployments.stop({ params: { id: first.id } });
    const third = await carol.client.deployments.create(on('BTC/USDT:USDT'));
    const again = await failure(carol.client.deployments.restart({ params: { id: first.id } }));
    expect(again.status).toBe(402);
    await carol.client.deployments.delete({ params: { id: second.id } });
    const taken = await failure(carol.client.deployments.restart({ params: { id: first.id } }));
    expect(taken.status).toBe(409);
    expect(taken.details).toMatchObject({ deploymentId: third.id, symbol: 'BTC/USDT:USDT' });
    expect((await carol.client.deployments.get({ params: { id: first.id } })).status).toBe('stopped');
    for (const d of (await carol.client.deployments.list()).deployments) await carol.client.deployments.delete({ params: { id: d.id } });

    // Concurrent creates on one symbol: exactly one wins, the others answer 409.
    const racing = await Promise.allSettled(Array.from({ length: 5 }, () => carol.client.deployments.create(on('XRP/USDT:USDT'))));
    expect(racing.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(racing.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.status)).toEqual([409, 409, 409, 409]);
    for (const d of (await carol.client.deployments.list()).deployments) await carol.client.deployments.delete({ params: { id: d.id } });
    await carol.client.strategies.delete({ params: { id: sid } });
  }, 60_000);
});
