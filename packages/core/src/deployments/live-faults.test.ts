import { afterEach, describe, expect, it } from 'vitest';
import { clientOrderPrefix } from '../exchanges/client-order-id.js';
import type { FakeOrder } from '../testing/fake-binance-usdm.js';
import { fillPart, refuseStopOrders } from '../testing/fake-binance-order-faults.js';
import { createOrderPlacement } from '../exchanges/order-placement.js';
import { newId } from '../util/ids.js';
import { createStoreLeaseFence } from './lease-fence.js';
import { startLiveHarness, SYMBOL, type LiveHarness } from './live-faults-harness.js';

/*
 * The live fault-injection suite: one deployment's real runner, through the real ccxt
 * binanceusdm class, against the local Binance double, one test per failure mode. The clock is
 * moved by hand and each cycle is called by the test, so nothing waits on a timer.
 */

const BUY_ONCE = `
export const meta = { timeframe: '1m' };
let sent = false;
export function onCandle(ctx, candle) {
  if (!sent && !ctx.position(candle.symbol)) { sent = true; ctx.buy(candle.symbol, { quantity: 0.01 }); }
}
export function onOrder(ctx, order) { ctx.log('onOrder', order.status, order.side, order.quantity); }
`;

const BID_WHEN_FLAT = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, candle) {
  if (!ctx.position(candle.symbol) && ctx.orders(candle.symbol).length === 0) ctx.buy(candle.symbol, { type: 'limit', price: 39000, quantity: 0.01 });
}
export function onOrder(ctx, order) { ctx.log('onOrder', order.status, order.side, order.quantity); }
`;

/** A bid with a stop-loss (above the flat candles, so the next candle after it attaches crosses it); the rest is cancelled a candle later. */
const PARTIAL = `
export const meta = { timeframe: '1m' };
let placed = false;
export function onCandle(ctx, candle) {
  const p = ctx.position(candle.symbol);
  if (p) ctx.log('position', p.quantity, 'stopLoss', p.stopLoss);
  if (!placed) { placed = true; ctx.buy(candle.symbol, { type: 'limit', price: 39000, quantity: 0.01, stopLoss: 45000 }); return; }
  for (const o of ctx.orders(candle.symbol)) ctx.cancel(o.id);
}
export function onOrder(ctx, order) { ctx.log('onOrder', order.type, order.status, order.side, order.quantity, order.reason); }
`;

const BUY_THEN_STOP = `
export const meta = { timeframe: '1m' };
let bought = false;
export function onCandle(ctx, candle) {
  if (!bought) { bought = true; ctx.buy(candle.symbol, { quantity: 0.01 }); }
}
export function onOrder(ctx, order) {
  ctx.log('onOrder', order.type, order.status, order.side, order.quantity);
  if (order.status === 'filled' && order.side === 'buy') ctx.sell(order.symbol, { type: 'stop', price: 38000, quantity: 0.01, reduceOnly: true });
}
`;

const CLOSE_EACH_CANDLE = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, candle) { if (ctx.position(candle.symbol)) ctx.close(candle.symbol); }
export function onOrder(ctx, order) { ctx.log('onOrder', order.type, order.status, order.side, order.quantity, order.reason); }
`;

const IDLE = `
export const meta = { timeframe: '1m' };
export function onCandle() {}
export function onOrder(ctx, order) { ctx.log('onOrder', order.status, order.side, order.quantity, order.reason); }
`;

const orderPosts = (h: LiveHarness) => h.fake.calls.filter((c) => c.method === 'POST' && c.path === '/fapi/v1/order');

function fakeOrder(clientOrderId: string, orderId: number): FakeOrder {
  return {
    orderId,
    clientOrderId,
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    origQty: '0.010',
    price: '39000',
    stopPrice: '0',
    reduceOnly: false,
    status: 'NEW',
    executedQty: '0',
    avgPrice: '0',
    time: Date.now(),
  };
}

describe('live faults against the Binance double', () => {
  let h: LiveHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('1. an order accepted with its answer dropped, then a crash and a restart: exactly one exchange order per client id', async () => {
    h = await startLiveHarness(BID_WHEN_FLAT);
    const first = await h.runner();
    expect(await first.start()).toBeNull();
    // The exchange takes the order but its answer never comes; the lookups by client id fail too (429s).
    h.fake.orderFaults.push('hang');
    h.fake.onOrderPost = () => h!.fake.readFaults.push('http429', 'http429', 'http429', 'http429', 'http429', 'http429');
    h.clock.nextCandle();
    expect(await first.cycle()).toBeNull();
    const [pending] = await h.orders();
    expect(pending).toMatchObject({ status: 'pending', filledQuantity: 0 });
    expect((await h.logs()).some((l) => l.startsWith('Order sent, outcome unknown yet'))).toBe(true);
    // The next cycles retry the lookup, never the order; then the node dies.
    h.fake.onOrderPost = undefined;
    h.fake.readFaults.push('http429', 'http429', 'http429');
    h.clock.nextCandle();
    await first.cycle();
    await first.halt();

    // Restarted once the exchange answers again: the order is found by its client id, not sent again.
    h.fake.readFaults.length = 0;
    const second = await h.runner();
    expect(await second.start()).toBeNull();
    for (let i = 0; i < 3; i++) {
      h.clock.nextCandle();
      expect(await second.cycle()).toBeNull();
    }
    const posts = orderPosts(h).map((c) => c.params['newClientOrderId']);
    expect(posts).toEqual([pending!.clientOrderId]);
    expect(h.fake.orders.size).toBe(1);
    const [onExchange] = [...h.fake.orders.values()];
    expect(await h.orders()).toMatchObject([{ clientOrderId: pending!.clientOrderId, exchangeOrderId: String(onExchange!.orderId), status: 'open' }]);
  }, 90_000);

  it('2. an order of the deployment the Store lacks is cancelled, and a Store order the exchange lacks is marked cancelled (the strategy is told)', async () => {
    h = await startLiveHarness(IDLE);
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    const prefix = clientOrderPrefix(h.deployment.id);
    // Left on the exchange by a crashed node (its Store write lost), and one placed by hand.
    h.fake.orders.set(`${prefix}orphan0000000000000`, fakeOrder(`${prefix}orphan0000000000000`, 5555));
    h.fake.orders.set('web_handplaced_order', fakeOrder('web_handplaced_order', 5556));
    // Open in the Store, unknown to the exchange under either id.
    const time = h.clock.now().toISOString();
    await h.store.orders.insert({
      id: newId('order'),
      userId: h.deployment.userId,
      deploymentId: h.deployment.id,
      clientOrderId: `${prefix}missing000000000000`,
      exchangeOrderId: '777777',
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      quantity: 0.01,
      price: 39_000,
      stopPrice: null,
      reduceOnly: false,
      status: 'open',
      filledQuantity: 0,
      averagePrice: null,
      fee: 0,
      createdAt: time,
      updatedAt: time,
    });

    h.clock.advance(31_000);
    expect(await runner.cycle()).toBeNull();

    expect(h.fake.orders.get(`${prefix}orphan0000000000000`)!.status).toBe('CANCELED');
    expect(h.fake.orders.get('web_handplaced_order')!.status).toBe('NEW');
    const [missing] = await h.orders();
    expect(missing).toMatchObject({ clientOrderId: `${prefix}missing000000000000`, status: 'cancelled' });
    const report = (await h.current()).reconciliation!;
    expect(report.runs).toBe(1);
    expect(report.mismatches.map((m) => m.kind).sort()).toEqual(['missing_order', 'unknown_order']);
    expect(report.mismatches.find((m) => m.kind === 'missing_order')!.orderId).toBe(missing!.id);
    expect(await h.logs()).toContain('onOrder cancelled buy 0.01 cancelled');
    expect((await h.current()).status).toBe('running');
  }, 60_000);

  it('5. a position changed behind the deployment halts it (positionMismatch) and it enters no more', async () => {
    h = await startLiveHarness(BUY_ONCE);
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    expect(orderPosts(h)).toHaveLength(1);
    expect(h.fake.position.amt).toBe('0.010');
    // Within 30 s nothing was off: the next run finds the fills explain the position.
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    expect((await h.current()).status).toBe('running');
    expect((await h.current()).reconciliation).toMatchObject({ runs: 2, mismatches: [], stream: 'none' });

    // A resting bid of the deployment, then someone buys 0.02 by hand.
    const bid = await createOrderPlacement({ store: h.store, clock: h.clock }).place(h.gateway, {
      userId: h.deployment.userId,
      deploymentId: h.deployment.id,
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      quantity: 0.01,
      price: 39_000,
    });
    h.fake.position = { amt: '0.030', entry: '40000' };
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const halted = await h.current();
    expect(halted.status).toBe('halted');
    expect(halted.halt).toMatchObject({ reason: 'positionMismatch', value: 0.03, limit: null });
    expect(halted.halt!.message).toContain('0.01');
    expect(halted.reconciliation!.mismatches.map((m) => m.kind)).toEqual(['position']);
    expect((await h.logs()).some((l) => l.startsWith('Position mismatch: the BTC/USDT:USDT position on the exchange is 0.03'))).toBe(true);
    // It enters no more: its resting bid is cancelled, the position is kept.
    expect(h.fake.orders.get(bid.clientOrderId)!.status).toBe('CANCELED');
    expect((await h.logs()).some((l) => l.startsWith('Deployment halted (1 order(s) cancelled, positions kept)'))).toBe(true);
    expect(h.fake.position.amt).toBe('0.030');
    expect(orderPosts(h)).toHaveLength(2);

    // Its owner restarts it: the position is taken as it is, and it runs on.
    await runner.halt();
    await h.store.deployments.transition(h.deployment.id, ['halted'], { status: 'starting', halt: null });
    const restarted = await h.runner();
    expect(await restarted.start()).toBeNull();
    h.clock.nextCandle();
    expect(await restarted.cycle()).toBeNull();
    expect((await h.current()).status).toBe('running');
    expect((await h.current()).reconciliation!.runs).toBe(4);
  }, 60_000);

  it('6. a protective stop the exchange refuses: the position is closed with a reduce-only market order', async () => {
    h = await startLiveHarness(BUY_THEN_STOP);
    refuseStopOrders(h.fake);
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const orders = await h.orders();
    const entry = orders.find((o) => o.side === 'buy');
    const stop = orders.find((o) => o.type === 'stop');
    const close = orders.find((o) => o.side === 'sell' && o.type === 'market');
    expect(entry).toMatchObject({ side: 'buy', type: 'market', status: 'filled', filledQuantity: 0.01 });
    expect(stop).toMatchObject({ side: 'sell', type: 'stop', reduceOnly: true, status: 'rejected' });
    expect(close).toMatchObject({ side: 'sell', type: 'market', reduceOnly: true, quantity: 0.01, status: 'filled' });
    expect(h.fake.position.amt).toBe('0.000');
    const logs = await h.logs();
    expect(logs.some((l) => l.startsWith('Stop order refused by the exchange') && l.includes('position closed with sell 0.01'))).toBe(true);
    expect(logs).toContain('onOrder stop rejected sell 0.01');
  }, 60_000);

  it('8. dust below the minimum quantity: the close sends nothing, the dust is logged at each close and kept once in the report, never sent and refused', async () => {
    h = await startLiveHarness(CLOSE_EACH_CANDLE, { reconcileIntervalMs: 3_600_000 });
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    h.fake.position = { amt: '0.0004', entry: '40000' }; // below the 0.001 minimum quantity
    for (let i = 0; i < 2; i++) {
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    expect(orderPosts(h)).toHaveLength(0);
    const logs = await h.logs();
    expect(logs.filter((l) => l.startsWith('Dust left in BTC/USDT:USDT: 0.0004 cannot be sold'))).toHaveLength(2);
    expect(logs).toContain('onOrder market cancelled sell 0.0004 only dust left, too small for the exchange to take');
    // The report keeps the dust once, at its latest close; the log has every close.
    const report = (await h.current()).reconciliation!;
    expect(report.mismatches.map((m) => m.kind)).toEqual(['balance']);
  }, 60_000);

  it('7. 40 % filled, then cancelled: the position, the stop-loss exit and its size are all 40 %', async () => {
    h = await startLiveHarness(PARTIAL);
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const [bid] = await h.orders();
    expect(bid).toMatchObject({ type: 'limit', quantity: 0.01, status: 'open' });
    fillPart(h.fake, bid!.clientOrderId, 0.004);
    // The next candle: the strategy cancels the rest.
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    expect(h.fake.orders.get(bid!.clientOrderId)).toMatchObject({ status: 'CANCELED', executedQty: '0.004' });
    expect((await h.orders())[0]).toMatchObject({ status: 'cancelled', filledQuantity: 0.004 });
    expect(h.fake.position.amt).toBe('0.004');
    expect(await h.logs()).toContain('onOrder limit filled buy 0.004 partially filled (0.004 of 0.01), the rest cancelled');
    // The stop-loss attached to the 0.004 filled; the next candle crosses it and closes exactly that.
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const exit = (await h.orders())[1];
    expect(exit).toMatchObject({ side: 'sell', type: 'market', quantity: 0.004, reduceOnly: true, status: 'filled', filledQuantity: 0.004 });
    expect(await h.logs()).toContain('onOrder stopLoss filled sell 0.004 null');
    expect(h.fake.position.amt).toBe('0.000');
  }, 60_000);

  it('11. a node whose lease was taken mid-order does not send its order', async () => {
    h = await startLiveHarness(BUY_ONCE);
    const { store, deployment } = h;
    const wall = Date.now();
    expect(await store.deployments.acquireLease(deployment.id, 'node-a', new Date(wall + 60_000).toISOString(), new Date(wall).toISOString())).toBe(true);
    const runner = await h.runner({ fence: createStoreLeaseFence({ store, deploymentId: deployment.id, owner: 'node-a', leaseMs: 60_000 }) });
    expect(await runner.start()).toBeNull();
    // Node A stalls past its lease; node B takes the deployment over. A has not noticed yet.
    expect(await store.deployments.acquireLease(deployment.id, 'node-b', new Date(wall + 600_000).toISOString(), new Date(wall + 61_000).toISOString())).toBe(
      true,
    );

    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    expect(orderPosts(h)).toHaveLength(0);
    expect(h.fake.orders.size).toBe(0);
    const [order] = await h.orders();
    expect(order).toMatchObject({ status: 'rejected', filledQuantity: 0 });
    expect((await h.logs()).some((l) => l.includes('not sent: this process no longer holds the lease'))).toBe(true);
  }, 60_000);
});
