import { afterEach, describe, expect, it } from 'vitest';
import { newClientOrderId } from '../exchanges/client-order-id.js';
import { fillSpotOrder } from '../testing/fake-binance-spot.js';
import { ExchangeGatewayError } from '../ports/exchange-gateway.js';
import { SPOT_SYMBOL, startSpotHarness, type SpotHarness } from './live-spot-harness.js';

/*
 * Live SPOT trading through the real ccxt binance class against the local Binance SPOT double
 * (fault 8 of the live fault suite, and the spot deployment's safety rule): a spot position is
 * what the deployment's own fills bought, less the fees taken in the base asset; an exit is
 * `min(position, free)` rounded down to the amount step; what is left below the step or the
 * minimum notional is dust, recorded once; coins the deployment did not buy are never sold.
 */

/** Buys 0.01 at the first candle, closes when it has a position, and (with `again`) buys once more after the close. */
const strategy = (again: boolean) => `
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, candle) {
  n++;
  const p = ctx.position(candle.symbol);
  ctx.log('candle', n, 'position', p ? p.quantity : 0);
  if (n === 1 || (${again} && n === 3)) { ctx.buy(candle.symbol, { quantity: 0.01 }); return; }
  if (n === 2 && p) ctx.close(candle.symbol);
  if (n > 3 && p) ctx.close(candle.symbol);
}
export function onOrder(ctx, order) { ctx.log('onOrder', order.type, order.status, order.side, order.quantity, order.reason); }
`;

const sells = (h: SpotHarness) => h.fake.calls.filter((c) => c.method === 'POST' && c.path === '/api/v3/order' && c.params['side'] === 'SELL');

describe('live spot trading against the Binance SPOT double', () => {
  let h: SpotHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('8. a fee taken in the base asset: the close sells min(position, free) rounded down to the step (0.00999, never 0.01), and it fills', async () => {
    h = await startSpotHarness(strategy(false));
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    // Bought 0.01; the fee took 0.00001 BTC.
    expect(h.fake.balances['BTC']!.free).toBe(0.00999);
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    expect(sells(h).map((c) => c.params['quantity'])).toEqual(['0.00999']);
    const orders = await h.orders();
    expect(orders.map((o) => [o.side, o.quantity, o.status])).toEqual([
      ['buy', 0.01, 'filled'],
      ['sell', 0.00999, 'filled'],
    ]);
    expect(h.fake.balances['BTC']!.free).toBe(0);
    const logs = await h.logs();
    expect(logs).toContain('candle 2 position 0.00999');
    expect(logs.some((l) => l.startsWith('Dust left'))).toBe(false);
    // Flat: the next candles send nothing.
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    expect(sells(h)).toHaveLength(1);
    expect(await h.logs()).toContain('candle 3 position 0');
  }, 90_000);

  it('8. dust: what the close leaves below the amount step is recorded once (log and a balance mismatch) and not retried at the next candle', async () => {
    h = await startSpotHarness(strategy(false));
    // 0.05 % in BTC: 0.009995 held, 0.00999 can be sold, 0.000005 cannot.
    h.fake.baseFeeRate = 0.0005;
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    expect(sells(h).map((c) => c.params['quantity'])).toEqual(['0.00999']);
    expect(h.fake.balances['BTC']!.free).toBe(0.000005);
    const dust = (await h.logs()).filter((l) => l.startsWith('Dust left in BTC/USDT'));
    expect(dust).toEqual(['Dust left in BTC/USDT: 0.000005 stays after selling 0.00999 (below the amount step 0.00001); recorded, not retried']);
    expect((await h.current()).reconciliation?.mismatches).toEqual([expect.objectContaining({ kind: 'balance', symbol: SPOT_SYMBOL, message: dust[0] })]);
    // The dust is no position: the strategy does not close it again, nothing is sent, nothing logged again.
    for (let i = 0; i < 2; i++) {
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    expect(sells(h)).toHaveLength(1);
    expect((await h.logs()).filter((l) => l.startsWith('Dust left'))).toHaveLength(1);
    expect(await h.logs()).toContain('candle 4 position 0');
  }, 90_000);

  it('never sells coins it did not buy: with 1 BTC of the owner on the account, its close and its stop sell only its own 0.00999', async () => {
    h = await startSpotHarness(strategy(true));
    h.fake.balances['BTC'] = { free: 1, locked: 0 };
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    for (let i = 0; i < 3; i++) {
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    // Candle 1 bought, candle 2 closed its own, candle 3 bought again.
    const logs = await h.logs();
    expect(logs).toContain('candle 2 position 0.00999');
    expect(logs).toContain('candle 3 position 0');
    expect(sells(h).map((c) => c.params['quantity'])).toEqual(['0.00999']);
    expect(h.fake.balances['BTC']!.free).toBe(1.00999);

    // The owner stops it: the stop closes the deployment's position, not the account's BTC.
    const running = await h.current();
    expect(running.status).toBe('running');
    await h.store.deployments.transition(running.id, ['running'], { status: 'stopping', updatedAt: h.clock.now().toISOString() });
    await h.stopFlow.stop(await h.current());
    expect(await h.current()).toMatchObject({ status: 'stopped' });
    expect(sells(h).map((c) => c.params['quantity'])).toEqual(['0.00999', '0.00999']);
    expect(h.fake.balances['BTC']!.free).toBe(1);
    expect((await h.orders()).filter((o) => o.side === 'sell').map((o) => o.status)).toEqual(['filled', 'filled']);

    // A sell beyond its own holding never leaves, whoever asks for it.
    const leased = await h.acquireGateway();
    const refused = await leased.gateway
      .createOrder({ clientOrderId: newClientOrderId(), symbol: SPOT_SYMBOL, side: 'sell', type: 'market', quantity: 0.5 })
      .catch((error: unknown) => error);
    leased.release();
    expect(refused).toBeInstanceOf(ExchangeGatewayError);
    expect((refused as ExchangeGatewayError).message).toContain('never sells coins it did not buy');
    expect(sells(h)).toHaveLength(2);
    expect(await leased.gateway.fetchPositions([SPOT_SYMBOL])).toEqual([]);
  }, 90_000);

  it("a close while its own coins rest in a take-profit is refused, not taken from the owner's 1 BTC", async () => {
    h = await startSpotHarness(`
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, candle) {
  n++;
  if (n === 1) ctx.buy(candle.symbol, { quantity: 0.01 });
  if (n === 2) ctx.sell(candle.symbol, { type: 'limit', price: 50000, quantity: 0.00999, reduceOnly: true });
  if (n === 3) ctx.close(candle.symbol);
}
export function onOrder(ctx, order) { ctx.log('onOrder', order.type, order.status, order.side, order.quantity); }
`);
    h.fake.balances['BTC'] = { free: 1, locked: 0 };
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    for (let i = 0; i < 3; i++) {
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    // The take-profit rests (a plain limit sell: spot has no reduce-only); the close would need the owner's coins.
    expect(sells(h).map((c) => [c.params['type'], c.params['quantity']])).toEqual([['LIMIT', '0.00999']]);
    expect(h.fake.balances['BTC']).toEqual({ free: 1, locked: 0.00999 });
    const closing = (await h.orders()).find((o) => o.side === 'sell' && o.type === 'market');
    expect(closing).toMatchObject({ status: 'rejected', quantity: 0.00999 });
    expect((await h.logs()).some((l) => l.includes('(0.00999 of it in open sells), and it never sells coins it did not buy'))).toBe(true);
  }, 90_000);

  it('8. a bid that fills while resting, its fee in BTC known only from its trades: the close still sells only the 0.00999 it holds, with 1 BTC of the owner on the account', async () => {
    h = await startSpotHarness(`
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, candle) {
  n++;
  const p = ctx.position(candle.symbol);
  ctx.log('candle', n, 'position', p ? p.quantity : 0);
  if (n === 1) ctx.buy(candle.symbol, { type: 'limit', price: 40000, quantity: 0.01 });
  else if (p) ctx.close(candle.symbol);
}
`);
    h.fake.balances['BTC'] = { free: 1, locked: 0 };
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const [bid] = await h.orders();
    expect(bid).toMatchObject({ type: 'limit', status: 'open' });
    // Matched on the book between two polls: the order lookup (GET /api/v3/order) carries no fee.
    fillSpotOrder(h.fake, bid!.clientOrderId);
    for (let i = 0; i < 2; i++) {
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    expect((await h.orders())[0]).toMatchObject({ status: 'filled', fee: 0.00001 });
    expect(sells(h).map((c) => c.params['quantity'])).toEqual(['0.00999']);
    expect(h.fake.balances['BTC']).toEqual({ free: 1, locked: 0 });
  }, 90_000);

  it("reconciliation: base sold by hand below what the fills leave halts the deployment (positionMismatch); the owner's own 1 BTC on top does not", async () => {
    h = await startSpotHarness(`
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, candle) { n++; if (n === 1) ctx.buy(candle.symbol, { quantity: 0.01 }); }
`);
    h.fake.balances['BTC'] = { free: 1, locked: 0 };
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    for (let i = 0; i < 2; i++) {
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    // Reconciled with 1.00999 BTC on the account and 0.00999 its own: nothing to say.
    expect((await h.current()).reconciliation?.runs).toBeGreaterThan(0);
    expect((await h.current()).reconciliation?.mismatches).toEqual([]);
    expect((await h.current()).status).toBe('running');
    // The owner sells 1.005 BTC by hand: 0.00499 is left, less than the deployment's own 0.00999.
    h.fake.balances['BTC']!.free = 0.00499;
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const halted = await h.current();
    expect(halted).toMatchObject({ status: 'halted', halt: { reason: 'positionMismatch', value: 0.00499 } });
    expect(halted.halt?.message).toBe(
      "The account holds 0.00499 BTC but the deployment's own BTC/USDT fills leave it 0.00999: sold or moved outside the deployment",
    );
    expect(sells(h)).toHaveLength(0);

    // Its owner restarts it: the shortfall is accepted, its position is what is left, and it stays running.
    await runner.halt();
    await h.store.deployments.transition(h.deployment.id, ['halted'], { status: 'starting', halt: null });
    const restarted = await h.runner();
    expect(await restarted.start()).toBeNull();
    expect((await h.current()).acceptedPositions).toEqual({ [SPOT_SYMBOL]: -0.005 });
    h.clock.nextCandle();
    expect(await restarted.cycle()).toBeNull();
    // The fresh strategy bought 0.01 again: its position is 0.00499 + 0.00999, and reconciliation finds it explained.
    expect(await h.current()).toMatchObject({ status: 'running', halt: null });
    const leased = await h.acquireGateway();
    expect(await leased.gateway.fetchPositions([SPOT_SYMBOL])).toMatchObject([{ symbol: SPOT_SYMBOL, side: 'long', quantity: 0.01498 }]);
    leased.release();
  }, 90_000);

  it("a risk halt with onBreach 'close' cancels the resting spot bid and sells only the deployment's own 0.00999, not the owner's 1 BTC", async () => {
    // Buys at the first candle; at the second, two bids: the second is past maxOrdersPerMinute 1.
    h = await startSpotHarness(
      `
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, candle) {
  n++;
  if (n === 1) ctx.buy(candle.symbol, { quantity: 0.01 });
  if (n === 2) { ctx.buy(candle.symbol, { type: 'limit', price: 30000, quantity: 0.0002 }); ctx.buy(candle.symbol, { type: 'limit', price: 30000, quantity: 0.0002 }); }
}
`,
      { risk: { maxOrdersPerMinute: 1, onBreach: 'close' } },
    );
    h.fake.balances['BTC'] = { free: 1, locked: 0 };
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    for (let i = 0; i < 2; i++) {
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    expect(await h.current()).toMatchObject({ status: 'halted', halt: { reason: 'maxOrdersPerMinute' } });
    // Placed within one candle of the hand-moved clock: compared in any order.
    const placed = (await h.orders()).map((o) => [o.side, o.type, o.quantity, o.status]);
    expect(placed).toHaveLength(3);
    expect(placed).toEqual(
      expect.arrayContaining([
        ['buy', 'market', 0.01, 'filled'],
        ['buy', 'limit', 0.0002, 'cancelled'],
        ['sell', 'market', 0.00999, 'filled'],
      ]),
    );
    expect(sells(h).map((c) => c.params['quantity'])).toEqual(['0.00999']);
    expect(h.fake.balances['BTC']).toEqual({ free: 1, locked: 0 });
  }, 90_000);

  it('values the coins it bought at their last close: spending half the quote balance on BTC is no drawdown', async () => {
    // At the double's flat price, the deployment's equity is unchanged by the buy but for its fee.
    h = await startSpotHarness(
      `
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, candle) {
  n++;
  if (n === 1) ctx.buy(candle.symbol, { quantity: 0.1 });
  ctx.log('equity', Math.round(ctx.equity()));
}
`,
      { risk: { maxDrawdown: 0.2, onBreach: 'close' } },
    );
    h.fake.balances['USDT'] = { free: 8000, locked: 0 };
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    for (let i = 0; i < 3; i++) {
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    // 0.1 BTC at 40,000: the buy took 4,000 of the 8,000 USDT, and its fee 0.0001 BTC (4 USDT).
    expect(h.fake.balances['USDT']!.free).toBe(4_000);
    const logs = await h.logs();
    expect(logs.filter((l) => l.startsWith('equity'))).toEqual(['equity 8000', 'equity 7996', 'equity 7996']);
    expect(await h.current()).toMatchObject({ status: 'running', halt: null });
  }, 90_000);
});
