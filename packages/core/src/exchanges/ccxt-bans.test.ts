import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCcxtExchange } from '../market-data/ccxt-market-data.js';
import type { ExchangeBans } from '../ports/exchange-bans.js';
import { rejection } from '../testing/gateway-rejection.js';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET, startFakeBinance, type FakeBinance } from '../testing/fake-binance-usdm.js';
import { newClientOrderId } from './client-order-id.js';
import { createExchangeClientPool, type ExchangeClientPool, type PoolCredential } from './exchange-client-pool.js';
import { createMemoryExchangeBans } from './memory-exchange-bans.js';
import { retryAfterMs } from './ccxt-ban-watch.js';
import { moveExchangeApi } from './move-exchange-api.js';

/*
 * Fault 9 of issue #24, through the real ccxt binanceusdm class against the local double: the
 * exchange answers an order 429, then (after its Retry-After) 418. Two client pools stand for
 * two nodes trading on one credential, sharing one ExchangeBans (the Redis one does the same
 * across processes: packages/queue-bullmq). During each Retry-After no order request leaves
 * either node (create and cancel fail at once with `unavailable`, naming the end of the ban),
 * reads wait it out, and trading resumes after it.
 */

const SYMBOL = 'BTC/USDT:USDT';
const credential: PoolCredential = {
  id: 'cred_ban',
  exchange: 'binanceusdm',
  testnet: false,
  secrets: { apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET },
};
const ACCOUNT = 'binanceusdm:cred_ban';

/** A pool ("node") whose ccxt clients talk to the fake. */
function node(fake: FakeBinance, bans: ExchangeBans): ExchangeClientPool {
  return createExchangeClientPool({
    bans,
    retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 },
    async createExchange(id, config) {
      const exchange = await createCcxtExchange(id, { ...config, timeout: 2000 });
      moveExchangeApi(exchange, fake.url);
      return exchange;
    },
  });
}

describe('429 then 418 with Retry-After, per account, across nodes (real ccxt against the local double)', () => {
  let fake: FakeBinance;
  let pools: ExchangeClientPool[];

  beforeEach(async () => {
    fake = await startFakeBinance();
    pools = [];
  });
  afterEach(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await fake.close();
  });

  const orderPosts = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/fapi/v1/order');
  const market = (clientOrderId = newClientOrderId()) => ({ clientOrderId, symbol: SYMBOL, side: 'buy' as const, type: 'market' as const, quantity: 0.01 });

  it('sends no order during a ban on either node, waits reads out, and trades again after it', async () => {
    const bans = createMemoryExchangeBans();
    pools = [node(fake, bans), node(fake, bans)];
    const [a, b] = await Promise.all(pools.map((p) => p.acquire(credential)));
    await Promise.all([a!.loadMarkets(), b!.loadMarkets()]);
    fake.account.rateLimits.push({ status: 429, retryAfterSeconds: 1, on: 'order' }, { status: 418, retryAfterSeconds: 2, on: 'order' });

    // 429: the order is refused, not sent again within its Retry-After, on either node.
    const limited = await rejection(a!.createOrder(market()));
    expect(limited.reason).toBe('unavailable');
    expect(limited.message).toMatch(/^binanceusdm asked this account to wait \(HTTP 429\) until \d{4}-\d\d-\d\dT[\d:.]+Z; order \w+ was not sent$/);
    expect(orderPosts()).toHaveLength(1);
    expect((await rejection(b!.createOrder(market()))).message).toMatch(/was not sent$/);
    expect(orderPosts()).toHaveLength(1);

    // After it, the next order goes out, and is answered 418: a ban of 2 s.
    await expect.poll(() => bans.bannedUntil(ACCOUNT), { interval: 50 }).toBeNull();
    const banned = await rejection(b!.createOrder(market()));
    expect(banned.reason).toBe('unavailable');
    expect(orderPosts()).toHaveLength(2);
    const banEnd = fake.account.rateLimitAnswers[1]!.until;
    expect(fake.account.rateLimitAnswers.map((x) => x.status)).toEqual([429, 418]);

    // During the ban: creates and cancels fail at once on both nodes, and nothing is sent.
    for (const gateway of [a!, b!]) {
      expect((await rejection(gateway.createOrder(market()))).message).toMatch(/^binanceusdm asked this account to wait \(HTTP (418|429\/418)\) until/);
      expect((await rejection(gateway.cancelOrder('1001', SYMBOL))).reason).toBe('unavailable');
    }
    expect(orderPosts()).toHaveLength(2);
    expect(fake.calls.filter((c) => c.method === 'DELETE')).toHaveLength(0);

    // A read waits the ban out instead of sending; then trading resumes.
    await a!.fetchBalance();
    expect(Date.now()).toBeGreaterThanOrEqual(banEnd);
    const filled = await a!.createOrder(market());
    expect(filled).toMatchObject({ status: 'filled', filledQuantity: 0.01 });
    expect(orderPosts()).toHaveLength(3);

    // No request of the account reached the exchange while a Retry-After ran.
    expect(fake.account.requestsDuringBan).toEqual([]);
    for (const answer of fake.account.rateLimitAnswers) {
      expect(fake.calls.filter((c) => c.params['signature'] !== undefined && c.at > answer.at && c.at < answer.until)).toEqual([]);
    }
  });

  it('a ban of one credential does not hold back another', async () => {
    const bans = createMemoryExchangeBans();
    pools = [node(fake, bans)];
    await bans.banUntil(ACCOUNT, Date.now() + 60_000);
    const other = await pools[0]!.acquire({ ...credential, id: 'cred_other' });
    expect(await other.createOrder(market())).toMatchObject({ status: 'filled' });
    const banned = await pools[0]!.acquire(credential);
    expect((await rejection(banned.createOrder(market()))).reason).toBe('unavailable');
    expect(orderPosts()).toHaveLength(1);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, in any header case', () => {
    expect(retryAfterMs({ 'Retry-After': '2' }, 0)).toBe(2000);
    expect(retryAfterMs({ 'retry-after': '0.5' }, 0)).toBe(500);
    expect(retryAfterMs({ 'Retry-After': new Date(10_000).toUTCString() }, 4_000)).toBe(6000);
    expect(retryAfterMs({ 'Retry-After': 'soon' }, 0)).toBeNull();
    expect(retryAfterMs({}, 0)).toBeNull();
  });
});
