import ccxt from 'ccxt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fillPart } from '../testing/fake-binance-order-faults.js';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET, startFakeBinance, type FakeBinance } from '../testing/fake-binance-usdm.js';
import { startFakeBinanceUserStream, type FakeUserStream } from '../testing/fake-binance-user-stream.js';
import type { ExchangeGateway } from '../ports/exchange-gateway.js';
import { createCcxtGateway } from './ccxt-gateway.js';
import { newClientOrderId } from './client-order-id.js';
import { moveExchangeApi } from './move-exchange-api.js';

/*
 * The gateway's private order stream: ccxt's pro binanceusdm class against the double's
 * user-data stream (listenKey over REST, ORDER_TRADE_UPDATE over a WebSocket).
 */

const SYMBOL = 'BTC/USDT:USDT';

function proAt(fake: FakeBinance, stream: FakeUserStream) {
  const exchange = new ccxt.pro.binanceusdm({ apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET, timeout: 1500 });
  const api = exchange.urls['api'] as Record<string, unknown>;
  moveExchangeApi(exchange, fake.url);
  (api['ws'] as Record<string, unknown>)['future'] = stream.wsUrl;
  return exchange;
}

describe('watchOrders of the ccxt gateway', () => {
  let fake: FakeBinance;
  let stream: FakeUserStream;
  let exchange: ReturnType<typeof proAt>;
  let gateway: ExchangeGateway;

  beforeEach(async () => {
    fake = await startFakeBinance();
    stream = await startFakeBinanceUserStream(fake);
    exchange = proAt(fake, stream);
    gateway = createCcxtGateway({ exchange, marketType: 'LINEAR', retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 } });
  });
  afterEach(async () => {
    await exchange.close();
    await stream.close();
    await fake.close();
  });

  it('is there on a pro class, not on a REST-only one', () => {
    expect(typeof gateway.watchOrders).toBe('function');
    const rest = createCcxtGateway({ exchange: new ccxt.binanceusdm({}), marketType: 'LINEAR' });
    expect(rest.watchOrders).toBeUndefined();
  });

  it("brings an order's updates, in core's types, and fails when the stream drops", async () => {
    const clientOrderId = newClientOrderId();
    await gateway.createOrder({ clientOrderId, symbol: SYMBOL, side: 'buy', type: 'limit', quantity: 0.01, price: 39_000 });
    const next = gateway.watchOrders!();
    await expect.poll(() => stream.connections()).toBe(1);
    expect(fake.calls.some((c) => c.method === 'POST' && c.path === '/fapi/v1/listenKey')).toBe(true);
    fillPart(fake, clientOrderId, 0.004);
    stream.emit(fake.orders.get(clientOrderId)!, { lastQty: 0.004 });
    expect(await next).toMatchObject([
      { clientOrderId, symbol: SYMBOL, side: 'buy', type: 'limit', status: 'partially_filled', quantity: 0.01, filledQuantity: 0.004 },
    ]);

    const failed = gateway.watchOrders!().then(
      () => 'resolved',
      () => 'rejected',
    );
    stream.drop();
    expect(await failed).toBe('rejected');
  });
});
