import { afterEach, describe, expect, it } from 'vitest';
import { fillPart } from '../testing/fake-binance-order-faults.js';
import { startLiveHarness, type LiveHarness } from './live-faults-harness.js';

/*
 * A private order stream that stays connected but goes quiet: the real runner on ccxt's pro
 * binanceusdm class against the Binance double's user-data stream, which does not send the
 * ORDER_TRADE_UPDATE of a fill. After the quiet period (two polls here) REST polls every open
 * order, so the fill still reaches the Store within two poll periods; once the stream delivers
 * again, a reconciliation run follows. The clock moves by hand; the stream's state is waited for.
 */

const BID_ONCE = `
export const meta = { timeframe: '1m' };
let placed = false;
export function onCandle(ctx, candle) {
  if (!placed) { placed = true; ctx.buy(candle.symbol, { type: 'limit', price: 39000, quantity: 0.01 }); }
}
export function onOrder(ctx, order) { ctx.log('onOrder', order.status, order.side, order.quantity); }
`;

const POLL_MS = 5000;
const HOUR = 3_600_000;

describe('a quiet private order stream', () => {
  let h: LiveHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const restOrderLookups = (harness: LiveHarness) => harness.fake.calls.filter((c) => c.method === 'GET' && c.path === '/fapi/v1/order').length;

  it('connected but silent about a fill: REST polls every open order after the quiet period, the fill is stored within two polls, and a reconciliation follows when it delivers again', async () => {
    h = await startLiveHarness(BID_ONCE, { stream: true, reconcileIntervalMs: HOUR });
    const runner = await h.runner({ orderStreamQuietMs: 2 * POLL_MS });
    expect(await runner.start()).toBeNull();
    await expect.poll(() => h!.streams[0]?.state).toBe('connected');
    const stream = h.streams[0]!;
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const [bid] = await h.orders();
    expect(bid).toMatchObject({ type: 'limit', status: 'open' });

    // The bid fills at once; the stream stays connected but sends nothing.
    fillPart(h.fake, bid!.clientOrderId, 0.01);
    const lookups = restOrderLookups(h);
    h.clock.advance(POLL_MS);
    expect(await runner.cycle()).toBeNull();
    // Within the quiet period the stream is trusted: no REST lookup yet.
    expect(restOrderLookups(h)).toBe(lookups);
    expect(stream.state).toBe('connected');
    h.clock.advance(POLL_MS);
    expect(await runner.cycle()).toBeNull();
    expect((await h.orders())[0]).toMatchObject({ status: 'filled', filledQuantity: 0.01 });
    expect(stream).toMatchObject({ state: 'polling', gapReason: 'quiet' });
    expect(restOrderLookups(h)).toBeGreaterThan(lookups);
    expect(h.fake.position.amt).toBe('0.010');
    expect((await h.logs()).filter((l) => l === 'onOrder filled buy 0.01')).toHaveLength(1);
    expect(await h.logs()).toContain('Order stream quiet with orders open: polling the exchange for every open order at each poll');
    expect((await h.current()).reconciliation ?? null).toBeNull();

    // The stream delivers again (the fill, late): connected, and a reconciliation run follows at the next poll; the fill counts once.
    h.userStream!.emit(h.fake.orders.get(bid!.clientOrderId)!, { lastQty: 0.01 });
    await expect.poll(() => stream.state).toBe('connected');
    h.clock.advance(POLL_MS);
    expect(await runner.cycle()).toBeNull();
    expect((await h.current()).reconciliation).toMatchObject({ runs: 1, stream: 'connected', mismatches: [] });
    expect((await h.logs()).filter((l) => l === 'onOrder filled buy 0.01')).toHaveLength(1);
  }, 90_000);
});
