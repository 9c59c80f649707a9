import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryExchangeBans } from '../exchanges/memory-exchange-bans.js';
import { startLiveHarness, type LiveHarness } from './live-faults-harness.js';

/*
 * Fault 9 as a whole deployment lives it: the exchange answers an order with 418 and a
 * Retry-After. The deployment sends nothing during the wait, is not failed for it, and its exit
 * goes out once the wait is over (the real runner, real ccxt, the local Binance double).
 */

/** Buys once; closes on every later candle while a position is open. */
const BUY_THEN_CLOSE = `
export const meta = { timeframe: '1m' };
let bought = false;
export function onCandle(ctx, candle) {
  if (!bought) { bought = true; ctx.buy(candle.symbol, { quantity: 0.01 }); return; }
  if (ctx.position(candle.symbol)) ctx.close(candle.symbol);
}
export function onOrder(ctx, order) { ctx.log('onOrder', order.status, order.side, order.quantity); }
`;

/** Enters on every candle while flat: entries during a wait are refused to the strategy. */
const ENTER_WHEN_FLAT = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, candle) { if (!ctx.position(candle.symbol)) ctx.buy(candle.symbol, { quantity: 0.01 }); }
export function onOrder(ctx, order) { ctx.log('onOrder', order.status, order.side, order.reason); }
`;

let h: LiveHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const orderPosts = (harness: LiveHarness) => harness.fake.calls.filter((c) => c.method === 'POST' && c.path === '/fapi/v1/order');

describe('an exchange that asks the account to wait (418 with Retry-After), through a running deployment', () => {
  it('sends no order during the wait, is not failed for it, and sends the held-back exit after it', async () => {
    // Reads do not wait the ban out here: each poll during it runs, and must send nothing.
    h = await startLiveHarness(BUY_THEN_CLOSE, { bans: { store: createMemoryExchangeBans(), readWaitMs: 0 } });
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    expect(h.fake.position.amt).toBe('0.010');

    // The close is answered 418 with a 2 s Retry-After.
    h.fake.account.rateLimits.push({ status: 418, retryAfterSeconds: 2, on: 'order' });
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const banEnd = h.fake.account.rateLimitAnswers[0]!.until;
    const logs = await h.logs();
    expect(logs.some((l) => l.startsWith('Exit not sent yet:') && l.includes('asked this account to wait (HTTP 418)'))).toBe(true);
    expect(logs.some((l) => l.startsWith('Order sent, outcome unknown'))).toBe(false);
    expect(h.fake.position.amt).toBe('0.010');
    const postsAtBan = orderPosts(h).length;

    // More polls during the wait: nothing is sent, the deployment is not failed, the pause is logged once.
    let polls = 0;
    for (; polls < 3 && Date.now() < banEnd - 500; polls++) {
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    expect(polls).toBeGreaterThan(0);
    expect(orderPosts(h)).toHaveLength(postsAtBan);
    expect((await h.logs()).filter((l) => l.startsWith('Trading paused:'))).toHaveLength(1);
    expect(h.fake.account.requestsDuringBan).toEqual([]);
    expect((await h.current()).status).toBe('running');

    // After the wait, the next poll sends the exit: the position is closed, once.
    await expect.poll(() => Date.now() > banEnd, { timeout: 30_000, interval: 100 }).toBe(true);
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    expect(h.fake.position.amt).toBe('0.000');
    const sells = (await h.orders()).filter((o) => o.side === 'sell' && o.status === 'filled');
    expect(sells).toHaveLength(1);
    expect(sells[0]).toMatchObject({ quantity: 0.01, reduceOnly: true });
  }, 60_000);

  it('refuses an entry during the wait to the strategy, logs the pause once, and trades again after it', async () => {
    h = await startLiveHarness(ENTER_WHEN_FLAT, { bans: { store: createMemoryExchangeBans(), readWaitMs: 0 } });
    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    h.fake.account.rateLimits.push({ status: 418, retryAfterSeconds: 2, on: 'order' });
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const banEnd = h.fake.account.rateLimitAnswers[0]!.until;
    expect(h.fake.position.amt).toBe('0.000');
    await expect.poll(() => Date.now() > banEnd, { timeout: 30_000, interval: 100 }).toBe(true);
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    // The refusal reached the strategy (at the first poll that could read the account), then the next entry filled.
    const logs = await h.logs();
    expect(logs.filter((l) => l.startsWith('onOrder rejected buy') && l.includes('asked this account to wait'))).toHaveLength(1);
    expect(logs.filter((l) => l.startsWith('Trading paused:'))).toHaveLength(1);
    expect(h.fake.position.amt).toBe('0.010');
    expect((await h.current()).status).toBe('running');
  }, 60_000);
});
