import { afterEach, describe, expect, it } from 'vitest';
import { fillPart } from '../testing/fake-binance-order-faults.js';
import { startLiveHarness, type LiveHarness } from './live-faults-harness.js';

/*
 * The live fault suite, private order streams: the real runner on ccxt's pro binanceusdm class,
 * whose user-data stream is the Binance double's (fake-binance-user-stream.ts). The clock moves
 * by hand and each cycle (one poll) is called by the test; the stream's own state is waited for.
 */

const BID_ONCE = `
export const meta = { timeframe: '1m' };
let placed = false;
export function onCandle(ctx, candle) {
  const p = ctx.position(candle.symbol);
  if (p) ctx.log('position', p.quantity);
  if (!placed) { placed = true; ctx.buy(candle.symbol, { type: 'limit', price: 39000, quantity: 0.01 }); }
}
export function onOrder(ctx, order) { ctx.log('onOrder', order.status, order.side, order.quantity); }
`;

const POLL_MS = 5000;
const HOUR = 3_600_000;

describe('live faults of the private order stream', () => {
  let h: LiveHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** Starts the runner, waits for its stream, and places the bid; returns the bid's client order id. */
  async function bidWithStream(harness: LiveHarness) {
    const runner = await harness.runner();
    expect(await runner.start()).toBeNull();
    await expect.poll(() => harness.streams[0]?.state).toBe('connected');
    harness.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const [bid] = await harness.orders();
    expect(bid).toMatchObject({ type: 'limit', status: 'open' });
    return { runner, clientOrderId: bid!.clientOrderId };
  }

  const restOrderLookups = (harness: LiveHarness) => harness.fake.calls.filter((c) => c.method === 'GET' && c.path === '/fapi/v1/order').length;

  it('3. the stream drops mid-fill: the order and the position converge over REST within two polls, and a reconciliation follows the reconnect', async () => {
    h = await startLiveHarness(BID_ONCE, { stream: true, reconcileIntervalMs: HOUR });
    const { runner, clientOrderId } = await bidWithStream(h);
    const stream = h.streams[0]!;

    // The first 40 % arrives over the stream; while it is up, the poll asks nothing over REST.
    fillPart(h.fake, clientOrderId, 0.004);
    h.userStream!.emit(h.fake.orders.get(clientOrderId)!, { lastQty: 0.004 });
    await expect.poll(() => stream.buffered()).toBe(1);
    const lookups = restOrderLookups(h);
    h.clock.advance(POLL_MS);
    expect(await runner.cycle()).toBeNull();
    expect((await h.orders())[0]).toMatchObject({ status: 'partially_filled', filledQuantity: 0.004 });
    expect(restOrderLookups(h)).toBe(lookups);

    // The stream drops; the rest fills while it is down, so no event tells of it.
    h.userStream!.drop();
    await expect.poll(() => stream.state).toBe('polling');
    fillPart(h.fake, clientOrderId, 0.006);
    for (let poll = 1; poll <= 2; poll++) {
      h.clock.advance(POLL_MS);
      expect(await runner.cycle()).toBeNull();
      if ((await h.orders())[0]!.status === 'filled') break;
    }
    expect((await h.orders())[0]).toMatchObject({ status: 'filled', filledQuantity: 0.01 });
    expect((await h.logs()).filter((l) => l === 'onOrder filled buy 0.01')).toHaveLength(1);
    expect(h.fake.position.amt).toBe('0.010');

    // Back up: a reconciliation run follows at the next poll, well before its hour.
    h.userStream!.resume();
    await expect.poll(() => stream.state, { timeout: 30_000 }).toBe('connected');
    expect((await h.current()).reconciliation ?? null).toBeNull();
    h.clock.advance(POLL_MS);
    expect(await runner.cycle()).toBeNull();
    expect((await h.current()).reconciliation).toMatchObject({ runs: 1, stream: 'connected', mismatches: [] });
    expect(await h.logs()).toEqual(
      expect.arrayContaining(['Order stream down: polling the exchange for every open order at each poll', 'Order stream connected']),
    );
  }, 90_000);

  it('4. a fill seen over both the stream and REST counts once, and a late stream update never takes a fill back', async () => {
    h = await startLiveHarness(BID_ONCE, { stream: true, reconcileIntervalMs: HOUR });
    const { runner, clientOrderId } = await bidWithStream(h);
    const stream = h.streams[0]!;

    // 0.004 fills; its stream event is received (not applied yet), then the stream drops and 0.004 more fills.
    fillPart(h.fake, clientOrderId, 0.004);
    h.userStream!.emit(h.fake.orders.get(clientOrderId)!, { lastQty: 0.004 });
    await expect.poll(() => stream.buffered()).toBe(1);
    h.userStream!.drop();
    await expect.poll(() => stream.state).toBe('polling');
    fillPart(h.fake, clientOrderId, 0.004);

    // One poll: REST reports 0.008; the stream's 0.004 (the same first fill) comes after it and changes nothing.
    h.clock.advance(POLL_MS);
    expect(await runner.cycle()).toBeNull();
    expect(stream.buffered()).toBe(0);
    expect((await h.orders())[0]).toMatchObject({ status: 'partially_filled', filledQuantity: 0.008 });

    // The rest fills; REST and then the stream (back up, replaying the fill) both report it.
    fillPart(h.fake, clientOrderId, 0.002);
    h.clock.advance(POLL_MS);
    expect(await runner.cycle()).toBeNull();
    h.userStream!.resume();
    await expect.poll(() => stream.state, { timeout: 30_000 }).toBe('connected');
    h.userStream!.emit(h.fake.orders.get(clientOrderId)!, { lastQty: 0.002 });
    await expect.poll(() => stream.buffered()).toBe(1);
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();

    expect(await h.orders()).toMatchObject([{ status: 'filled', filledQuantity: 0.01 }]);
    const logs = await h.logs();
    expect(logs.filter((l) => l.startsWith('onOrder'))).toEqual(['onOrder filled buy 0.01']);
    expect(logs.filter((l) => l.startsWith('Order filled:'))).toHaveLength(1);
    expect(logs).toContain('position 0.01');
    expect(h.fake.position.amt).toBe('0.010');
  }, 90_000);
});
