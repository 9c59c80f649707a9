import ccxt from 'ccxt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rejection } from '../testing/gateway-rejection.js';
import type { ExchangeGateway } from '../ports/exchange-gateway.js';
import { createCcxtGateway } from './ccxt-gateway.js';
import { newClientOrderId } from './client-order-id.js';
import { createCooldown } from './retry-policy.js';
import {
  FAKE_BINANCE_API_KEY,
  FAKE_BINANCE_MARK,
  FAKE_BINANCE_SECRET,
  secretEchoes,
  startFakeBinance,
  type FakeBinance,
} from '../testing/fake-binance-usdm.js';
import { moveExchangeApi } from './move-exchange-api.js';

/*
 * The real ccxt `binanceusdm` class (USDT-margined futures) against the local fake of
 * `testing/fake-binance-usdm.ts`. No internet is needed.
 */

const API_KEY = FAKE_BINANCE_API_KEY;
const SECRET = FAKE_BINANCE_SECRET;
const MARK = FAKE_BINANCE_MARK;

/** The real ccxt binanceusdm class with every API base URL moved to `baseUrl`. */
function binanceUsdmAt(baseUrl: string, overrides: { secret?: string; apiKey?: string } = {}) {
  const exchange = new ccxt.binanceusdm({ apiKey: overrides.apiKey ?? API_KEY, secret: overrides.secret ?? SECRET, enableRateLimit: true, timeout: 300 });
  moveExchangeApi(exchange, baseUrl);
  return exchange;
}

const SYMBOL = 'BTC/USDT:USDT';
const fastRetry = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 };

describe('createCcxtGateway with the real binanceusdm class against a local fake', () => {
  let fake: FakeBinance;
  let gateway: ExchangeGateway;

  beforeEach(async () => {
    fake = await startFakeBinance();
    gateway = createCcxtGateway({ exchange: binanceUsdmAt(fake.url), marketType: 'LINEAR', retry: fastRetry });
  });
  afterEach(async () => {
    await fake.close();
  });

  const orderPosts = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/fapi/v1/order');

  it('loads the USDT-margined perpetual markets', async () => {
    const markets = await gateway.loadMarkets();
    expect(Object.keys(markets)).toEqual([SYMBOL]);
    expect(await gateway.market(SYMBOL)).toMatchObject({
      symbol: SYMBOL,
      base: 'BTC',
      quote: 'USDT',
      settle: 'USDT',
      type: 'swap',
      linear: true,
      amountStep: 0.001,
      priceStep: 0.1,
      minQuantity: 0.001,
      active: true,
    });
    const error = await rejection(gateway.market('ETH/USDT:USDT'));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.reason).toBe('bad_symbol');
  });

  it('places a limit order carrying the client order id, finds it by that id, lists and cancels it', async () => {
    const clientOrderId = newClientOrderId();
    const order = await gateway.createOrder({ clientOrderId, symbol: SYMBOL, side: 'buy', type: 'limit', quantity: 0.01, price: 39_000 });
    expect(orderPosts()).toHaveLength(1);
    expect(orderPosts()[0]!.params).toMatchObject({
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      quantity: '0.01',
      price: '39000',
      newClientOrderId: clientOrderId,
    });
    expect(order).toMatchObject({
      clientOrderId,
      symbol: SYMBOL,
      side: 'buy',
      type: 'limit',
      status: 'open',
      quantity: 0.01,
      price: 39_000,
      filledQuantity: 0,
      reduceOnly: false,
    });
    expect(order.exchangeOrderId).toBe(String(fake.orders.get(clientOrderId)!.orderId));

    expect(await gateway.fetchOrderByClientId(clientOrderId, SYMBOL, { type: 'limit' })).toMatchObject({
      exchangeOrderId: order.exchangeOrderId,
      status: 'open',
    });
    expect(await gateway.fetchOrderByClientId(newClientOrderId(), SYMBOL)).toBeNull();
    expect(await gateway.fetchOrder(order.exchangeOrderId, SYMBOL)).toMatchObject({ clientOrderId, status: 'open' });
    expect((await gateway.fetchOpenOrders(SYMBOL)).map((o) => o.clientOrderId)).toEqual([clientOrderId]);
    expect((await gateway.fetchOpenOrders()).map((o) => o.clientOrderId)).toEqual([clientOrderId]);

    const cancelled = await gateway.cancelOrder(order.exchangeOrderId, SYMBOL);
    expect(cancelled).toMatchObject({ exchangeOrderId: order.exchangeOrderId, status: 'cancelled' });
    expect(await gateway.fetchOpenOrders(SYMBOL)).toEqual([]);
    const again = await rejection(gateway.cancelOrder(order.exchangeOrderId, SYMBOL));
    expect(again.code).toBe('NOT_FOUND');
    expect(again.reason).toBe('order_not_found');
  });

  it('places a reduce-only market order and reports its fill', async () => {
    const clientOrderId = newClientOrderId();
    const order = await gateway.createOrder({ clientOrderId, symbol: SYMBOL, side: 'sell', type: 'market', quantity: 0.002, reduceOnly: true });
    expect(orderPosts()[0]!.params).toMatchObject({ type: 'MARKET', side: 'SELL', reduceOnly: 'true', newClientOrderId: clientOrderId });
    expect(order).toMatchObject({ status: 'filled', filledQuantity: 0.002, averagePrice: MARK, reduceOnly: true, type: 'market', price: null });
  });

  it("reports a futures fill's fee from the account's trades (Binance's order answers carry none), and an expired market order as unfilled", async () => {
    fake.commissionRate = 0.0006;
    fake.marketFillPrice = (side) => (side === 'BUY' ? 40_020 : 39_980);
    const bought = await gateway.createOrder({ clientOrderId: newClientOrderId(), symbol: SYMBOL, side: 'buy', type: 'market', quantity: 0.01 });
    expect(bought).toMatchObject({ status: 'filled', filledQuantity: 0.01, averagePrice: 40_020 });
    expect(bought.fee).toBeCloseTo(0.01 * 40_020 * 0.0006, 12);
    expect(fake.calls.some((c) => c.path === '/fapi/v1/userTrades')).toBe(true);
    const found = await gateway.fetchOrder(bought.exchangeOrderId!, SYMBOL);
    expect(found.fee).toBeCloseTo(0.01 * 40_020 * 0.0006, 12);

    fake.orderFaults.push('expire');
    const expired = await gateway.createOrder({ clientOrderId: newClientOrderId(), symbol: SYMBOL, side: 'sell', type: 'market', quantity: 0.01 });
    expect(expired).toMatchObject({ filledQuantity: 0, fee: 0 });
    expect(['cancelled', 'expired', 'rejected']).toContain(expired.status);
  });

  it('resolves a createOrder that timed out by looking it up: the exchange holds exactly one order', async () => {
    fake.orderFaults = ['hang'];
    const clientOrderId = newClientOrderId();
    const order = await gateway.createOrder({ clientOrderId, symbol: SYMBOL, side: 'buy', type: 'market', quantity: 0.01 });
    expect(order).toMatchObject({ clientOrderId, status: 'filled', filledQuantity: 0.01 });
    expect(fake.orders.size).toBe(1);
    expect(orderPosts()).toHaveLength(1);
    const lookups = fake.calls.filter((c) => c.method === 'GET' && c.path === '/fapi/v1/order');
    expect(lookups.map((c) => c.params['origClientOrderId'])).toEqual([clientOrderId]);

    // Asking again with the same client order id answers the same order and sends nothing.
    const again = await gateway.createOrder({ clientOrderId, symbol: SYMBOL, side: 'buy', type: 'market', quantity: 0.01 });
    expect(again.exchangeOrderId).toBe(order.exchangeOrderId);
    expect(orderPosts()).toHaveLength(1);
    expect(fake.orders.size).toBe(1);
  });

  it('resolves a 503 on createOrder (outcome unknown) by lookup, without sending again', async () => {
    fake.orderFaults = ['http503'];
    const clientOrderId = newClientOrderId();
    const order = await gateway.createOrder({ clientOrderId, symbol: SYMBOL, side: 'sell', type: 'limit', quantity: 0.01, price: 41_000 });
    expect(order).toMatchObject({ clientOrderId, status: 'open', price: 41_000 });
    expect(orderPosts()).toHaveLength(1);
    expect(fake.orders.size).toBe(1);
  });

  it('never sends an order again when its outcome stays unknown: unknown_outcome (UNAVAILABLE)', async () => {
    fake.orderFaults = ['drop'];
    const clientOrderId = newClientOrderId();
    const error = await rejection(gateway.createOrder({ clientOrderId, symbol: SYMBOL, side: 'buy', type: 'market', quantity: 0.01 }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.reason).toBe('unknown_outcome');
    expect(error.details).toEqual({ exchange: 'binanceusdm', reason: 'unknown_outcome', clientOrderId });
    expect(orderPosts()).toHaveLength(1);
    // It looked the order up several times (it might have shown up late), then gave up.
    expect(fake.calls.filter((c) => c.path === '/fapi/v1/order' && c.method === 'GET').length).toBe(fastRetry.maxAttempts);

    // A second createOrder with the same id still does not send it.
    const second = await rejection(gateway.createOrder({ clientOrderId, symbol: SYMBOL, side: 'buy', type: 'market', quantity: 0.01 }));
    expect(second.reason).toBe('unknown_outcome');
    expect(orderPosts()).toHaveLength(1);
    expect(fake.orders.size).toBe(0);
  });

  it('retries 429 answers with backoff, then places the order once', async () => {
    fake.orderFaults = ['http429', 'http429'];
    const clientOrderId = newClientOrderId();
    const order = await gateway.createOrder({ clientOrderId, symbol: SYMBOL, side: 'buy', type: 'limit', quantity: 0.01, price: 39_500 });
    expect(order.status).toBe('open');
    expect(orderPosts()).toHaveLength(3);
    expect(orderPosts().every((c) => c.params['newClientOrderId'] === clientOrderId)).toBe(true);
    expect(fake.orders.size).toBe(1);
  });

  it('gives up on an order after maxAttempts rate-limit answers: UNAVAILABLE, nothing placed', async () => {
    fake.orderFaults = ['http429', 'http429', 'http429', 'http429', 'http429'];
    const error = await rejection(gateway.createOrder({ clientOrderId: newClientOrderId(), symbol: SYMBOL, side: 'buy', type: 'market', quantity: 0.01 }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.reason).toBe('unavailable');
    expect(orderPosts()).toHaveLength(fastRetry.maxAttempts);
    expect(fake.orders.size).toBe(0);
  });

  it('does not retry "insufficient margin": a clear error, sent once', async () => {
    fake.orderFaults = ['insufficient'];
    const error = await rejection(gateway.createOrder({ clientOrderId: newClientOrderId(), symbol: SYMBOL, side: 'buy', type: 'market', quantity: 5 }));
    expect(error.code).toBe('CONFLICT');
    expect(error.reason).toBe('insufficient_funds');
    expect(error.message).toContain('insufficient funds');
    expect(error.message).toContain('Cross balance insufficient.');
    expect(orderPosts()).toHaveLength(1);
  });

  it('retries reads that hit a rate limit, and pauses every gateway of the client meanwhile', async () => {
    const exchange = binanceUsdmAt(fake.url);
    const cooldown = createCooldown();
    const a = createCcxtGateway({ exchange, marketType: 'LINEAR', retry: { ...fastRetry, baseDelayMs: 300, maxDelayMs: 300 }, cooldown });
    const b = createCcxtGateway({ exchange, marketType: 'LINEAR', retry: fastRetry, cooldown });
    await a.loadMarkets();
    await b.loadMarkets();
    fake.readFaults = ['http429'];
    const balance = a.fetchBalance();
    // Once a's request got its 429, b's next call waits out the pause too (300 ms x jitter >= 0.5).
    while (!fake.calls.some((c) => c.path === '/fapi/v3/account')) await new Promise((resolve) => setTimeout(resolve, 2));
    const limitedAt = fake.calls.find((c) => c.path === '/fapi/v3/account')!.at;
    await new Promise((resolve) => setTimeout(resolve, 10));
    await b.fetchOpenOrders(SYMBOL);
    expect(fake.calls.find((c) => c.path === '/fapi/v1/openOrders')!.at - limitedAt).toBeGreaterThanOrEqual(140);
    expect((await balance)['USDT']).toEqual({ free: 900, used: 100, total: 1000 });
    expect(fake.calls.filter((c) => c.path === '/fapi/v3/account')).toHaveLength(2);
  });

  it('reads positions and skips flat ones', async () => {
    expect(await gateway.fetchPositions([SYMBOL])).toEqual([]);
    fake.position = { amt: '-0.250', entry: '41000.0' };
    expect(await gateway.fetchPositions([SYMBOL])).toEqual([
      { symbol: SYMBOL, side: 'short', quantity: 0.25, entryPrice: 41_000, markPrice: MARK, unrealizedPnl: 250, leverage: null, liquidationPrice: null },
    ]);
  });

  it('validates a request before sending anything', async () => {
    const bad = [
      { clientOrderId: 'has space', symbol: SYMBOL, side: 'buy', type: 'market', quantity: 1 },
      { clientOrderId: newClientOrderId(), symbol: SYMBOL, side: 'buy', type: 'market', quantity: 0 },
      { clientOrderId: newClientOrderId(), symbol: SYMBOL, side: 'buy', type: 'limit', quantity: 1 },
      { clientOrderId: newClientOrderId(), symbol: SYMBOL, side: 'buy', type: 'stop', quantity: 1 },
      { clientOrderId: newClientOrderId(), symbol: SYMBOL, side: 'buy', type: 'market', quantity: 1, price: 5 },
    ] as const;
    for (const request of bad) {
      const error = await rejection(gateway.createOrder(request));
      expect(error.reason).toBe('invalid_order');
      expect(error.code).toBe('VALIDATION_FAILED');
    }
    const unknownSymbol = await rejection(
      gateway.createOrder({ clientOrderId: newClientOrderId(), symbol: 'DOGE/USDT:USDT', side: 'buy', type: 'market', quantity: 1 }),
    );
    expect(unknownSymbol.reason).toBe('bad_symbol');
    expect(orderPosts()).toHaveLength(0);
  });

  it('maps a refused key to FORBIDDEN, and never shows the secret or a signature', async () => {
    const wrong = createCcxtGateway({ exchange: binanceUsdmAt(fake.url, { secret: 'another-secret-QQQQ' }), marketType: 'LINEAR', retry: fastRetry });
    const error = await rejection(wrong.fetchBalance());
    expect(error.code).toBe('FORBIDDEN');
    expect(error.reason).toBe('authentication');
    const shown = JSON.stringify({ message: error.message, details: error.details, cause: String((error as Error).cause) });
    expect(shown).not.toContain('another-secret-QQQQ');
    expect(shown).not.toContain(API_KEY);
    expect(shown).not.toMatch(/signature=/);
  });

  it('answers a 401 that echoes the key in any encoding with a clear message that holds none of it, nor the body', async () => {
    const key = 'live/Key+9c1d"5e7f=3a2b-K3YH';
    const echoes = secretEchoes(key, SECRET);
    const bodies = [
      JSON.stringify({ code: -2014, msg: `API-key format invalid: ${echoes.join(' | ')}` }), // the exchange
      `Unauthorized: unknown key ${echoes.join(', ')}`, // a proxy in front of it, in plain text
    ];
    for (const body of bodies) {
      fake.unauthorizedBody = () => body;
      const wrong = createCcxtGateway({ exchange: binanceUsdmAt(fake.url, { apiKey: key }), marketType: 'LINEAR', retry: fastRetry });
      const error = await rejection(wrong.fetchBalance());
      expect(error.code).toBe('FORBIDDEN');
      expect(error.reason).toBe('authentication');
      expect(error.message).toMatch(
        /^binanceusdm refused the API key: check the credential's key, secret and permissions \(AuthenticationError(, HTTP 401)?\)$/,
      );
      const shown = JSON.stringify({ message: error.message, details: error.details, cause: String((error as Error).cause), stack: error.stack });
      for (const echo of echoes) expect(shown).not.toContain(echo);
      expect(shown).not.toMatch(/format invalid|unknown key/);
    }
  });

  it('keeps secrets and signed URLs out of timeout messages', async () => {
    fake.readFaults = [];
    const url = fake.url;
    await fake.close();
    const offline = createCcxtGateway({ exchange: binanceUsdmAt(url), marketType: 'LINEAR', retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    const error = await rejection(offline.fetchBalance());
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('binanceusdm is unavailable');
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toMatch(/signature=|timestamp=/);
    fake = await startFakeBinance(); // for afterEach
  });
});
