import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import ccxt from 'ccxt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExchangeGatewayError, type ExchangeGateway } from '../ports/exchange-gateway.js';
import { createCcxtGateway } from './ccxt-gateway.js';
import { newClientOrderId } from './client-order-id.js';
import { createCooldown } from './retry-policy.js';

/*
 * The real ccxt `binanceusdm` class (USDT-margined futures) against a local HTTP server that
 * answers the endpoints the gateway uses: exchangeInfo and the currency list (loadMarkets),
 * account (balance), leverageBracket and positionRisk (positions), order (create, fetch,
 * cancel), openOrders. Signed requests are checked against the API secret, as Binance does.
 * No internet is needed.
 */

const API_KEY = 'test-api-key-AAAA1111';
const SECRET = 'test-secret-ZZZZ9999-never-shown';
const MARK = 40_000;

const perpetual = {
  symbol: 'BTCUSDT',
  pair: 'BTCUSDT',
  contractType: 'PERPETUAL',
  deliveryDate: 4133404800000,
  onboardDate: 1_700_000_000_000,
  status: 'TRADING',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  marginAsset: 'USDT',
  pricePrecision: 2,
  quantityPrecision: 3,
  orderTypes: ['LIMIT', 'MARKET', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET'],
  timeInForce: ['GTC', 'IOC', 'FOK', 'GTX'],
  filters: [
    { filterType: 'PRICE_FILTER', minPrice: '0.10', maxPrice: '4529764', tickSize: '0.10' },
    { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '1000', stepSize: '0.001' },
    { filterType: 'MIN_NOTIONAL', notional: '5' },
  ],
};

/** What the next POST /fapi/v1/order does instead of answering normally. */
type OrderFault =
  | 'hang' // records the order, never answers (the client times out)
  | 'drop' // records nothing, never answers
  | 'http429' // refuses: too many requests
  | 'insufficient' // refuses: balance insufficient
  | 'http503'; // records the order, then answers 503 (outcome unknown to the client)

interface FakeOrder {
  orderId: number;
  clientOrderId: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  type: string;
  origQty: string;
  price: string;
  stopPrice: string;
  reduceOnly: boolean;
  status: 'NEW' | 'FILLED' | 'CANCELED';
  executedQty: string;
  avgPrice: string;
  time: number;
}

interface Call {
  method: string;
  path: string;
  params: Record<string, string>;
  /** When the request arrived (ms). */
  at: number;
}

interface FakeBinance {
  url: string;
  orders: Map<string, FakeOrder>;
  calls: Call[];
  orderFaults: OrderFault[];
  /** Faults of the next GET requests of any path. */
  readFaults: Array<'http429' | 'http418'>;
  position: { amt: string; entry: string };
  close(): Promise<void>;
}

const orderBody = (o: FakeOrder) => ({
  orderId: o.orderId,
  symbol: o.symbol,
  status: o.status,
  clientOrderId: o.clientOrderId,
  price: o.price,
  avgPrice: o.avgPrice,
  origQty: o.origQty,
  executedQty: o.executedQty,
  cumQty: o.executedQty,
  cumQuote: String(Number(o.executedQty) * Number(o.avgPrice)),
  timeInForce: 'GTC',
  type: o.type,
  reduceOnly: o.reduceOnly,
  closePosition: false,
  side: o.side,
  positionSide: 'BOTH',
  stopPrice: o.stopPrice,
  workingType: 'CONTRACT_PRICE',
  priceProtect: false,
  origType: o.type,
  time: o.time,
  updateTime: o.time,
});

async function startFakeBinance(): Promise<FakeBinance> {
  const fake: FakeBinance = {
    url: '',
    orders: new Map(),
    calls: [],
    orderFaults: [],
    readFaults: [],
    position: { amt: '0.000', entry: '0.0' },
    close: async () => {},
  };
  let nextOrderId = 1000;
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const query = url.search.slice(1);
    const raw = req.method === 'POST' ? body : query;
    const params = Object.fromEntries(new URLSearchParams(raw));
    fake.calls.push({ method: req.method ?? '', path: url.pathname, params, at: Date.now() });

    if (req.method === 'GET') {
      const fault = fake.readFaults.shift();
      if (fault === 'http429') return json(res, 429, { code: -1003, msg: 'Too many requests; current limit is 2400 requests per minute.' });
      if (fault === 'http418') return json(res, 418, { code: -1003, msg: 'Way too many requests; IP banned until later.' });
    }
    if (url.pathname === '/fapi/v1/exchangeInfo') return json(res, 200, { timezone: 'UTC', serverTime: Date.now(), rateLimits: [], exchangeFilters: [], symbols: [perpetual] });
    if (url.pathname.startsWith('/sapi/')) return json(res, 200, []);

    // Everything below is signed: check the key and the HMAC of the payload, as Binance does.
    if (req.headers['x-mbx-apikey'] !== API_KEY) return json(res, 401, { code: -2014, msg: 'API-key format invalid.' });
    const payload = raw.replace(/&?signature=[0-9a-f]+$/, '');
    const expected = createHmac('sha256', SECRET).update(payload).digest('hex');
    if (params['signature'] !== expected) return json(res, 400, { code: -1022, msg: 'Signature for this request is not valid.' });

    const findOrder = () => {
      if (params['origClientOrderId'] !== undefined) return fake.orders.get(params['origClientOrderId']);
      return [...fake.orders.values()].find((o) => String(o.orderId) === params['orderId']);
    };

    switch (`${req.method} ${url.pathname}`) {
      case 'GET /fapi/v3/account':
        return json(res, 200, {
          totalWalletBalance: '1000.0',
          assets: [
            {
              asset: 'USDT',
              walletBalance: '1000.00000000',
              unrealizedProfit: '0.00000000',
              marginBalance: '1000.00000000',
              maintMargin: '0.0',
              initialMargin: '100.00000000',
              positionInitialMargin: '100.0',
              openOrderInitialMargin: '0.0',
              crossWalletBalance: '1000.0',
              crossUnPnl: '0.0',
              availableBalance: '900.00000000',
              maxWithdrawAmount: '900.0',
              updateTime: 1_700_000_000_000,
            },
          ],
          positions: [],
        });
      case 'GET /fapi/v1/leverageBracket':
        return json(res, 200, [{ symbol: 'BTCUSDT', brackets: [{ bracket: 1, initialLeverage: 125, notionalCap: 50_000, notionalFloor: 0, maintMarginRatio: 0.004, cum: 0 }] }]);
      case 'GET /fapi/v3/positionRisk':
        return json(res, 200, [
          {
            symbol: 'BTCUSDT',
            positionSide: 'BOTH',
            positionAmt: fake.position.amt,
            entryPrice: fake.position.entry,
            breakEvenPrice: fake.position.entry,
            markPrice: String(MARK),
            unRealizedProfit: String(Number(fake.position.amt) * (MARK - Number(fake.position.entry))),
            liquidationPrice: '0',
            isolatedMargin: '0',
            notional: String(Number(fake.position.amt) * MARK),
            marginAsset: 'USDT',
            isolatedWallet: '0',
            initialMargin: '10',
            maintMargin: '1',
            positionInitialMargin: '10',
            openOrderInitialMargin: '0',
            adl: 0,
            bidNotional: '0',
            askNotional: '0',
            updateTime: 1_700_000_000_000,
          },
        ]);
      case 'POST /fapi/v1/order': {
        const fault = fake.orderFaults.shift();
        if (fault === 'http429') return json(res, 429, { code: -1003, msg: 'Too many requests; current limit is 1200 orders per minute.' });
        // Binance futures answers -2019 "Margin is insufficient." too, but ccxt maps that code only for
        // requests to fapi.binance.com; -4050 is mapped for every host.
        if (fault === 'insufficient') return json(res, 400, { code: -4050, msg: 'Cross balance insufficient.' });
        if (fault === 'drop') return; // never answered, nothing recorded
        const clientOrderId = params['newClientOrderId'] ?? `x-${nextOrderId}`;
        if (fake.orders.has(clientOrderId) && fake.orders.get(clientOrderId)!.status === 'NEW') {
          return json(res, 400, { code: -4015, msg: 'Client order id is not valid.' });
        }
        const market = params['type'] === 'MARKET';
        const order: FakeOrder = {
          orderId: nextOrderId++,
          clientOrderId,
          symbol: params['symbol'] ?? '',
          side: params['side'] === 'SELL' ? 'SELL' : 'BUY',
          type: params['type'] ?? 'LIMIT',
          origQty: params['quantity'] ?? '0',
          price: params['price'] ?? '0',
          stopPrice: params['stopPrice'] ?? '0',
          reduceOnly: params['reduceOnly'] === 'true',
          status: market ? 'FILLED' : 'NEW',
          executedQty: market ? (params['quantity'] ?? '0') : '0',
          avgPrice: market ? String(MARK) : '0',
          time: Date.now(),
        };
        fake.orders.set(clientOrderId, order);
        if (fault === 'hang') return; // recorded, never answered
        if (fault === 'http503') return json(res, 503, { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' });
        return json(res, 200, orderBody(order));
      }
      case 'GET /fapi/v1/order': {
        const order = findOrder();
        return order ? json(res, 200, orderBody(order)) : json(res, 400, { code: -2013, msg: 'Order does not exist.' });
      }
      case 'GET /fapi/v1/algoOrder':
        return json(res, 400, { code: -2013, msg: 'Order does not exist.' });
      case 'DELETE /fapi/v1/order': {
        const order = findOrder();
        if (!order || order.status !== 'NEW') return json(res, 400, { code: -2011, msg: 'Unknown order sent.' });
        order.status = 'CANCELED';
        return json(res, 200, orderBody(order));
      }
      case 'GET /fapi/v1/openOrders':
        return json(
          res,
          200,
          [...fake.orders.values()].filter((o) => o.status === 'NEW' && (params['symbol'] === undefined || o.symbol === params['symbol'])).map(orderBody),
        );
      default:
        return json(res, 404, { code: -5000, msg: `No route ${req.method} ${url.pathname}` });
    }
  };

  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

/** The real ccxt binanceusdm class with every API base URL moved to `baseUrl`. */
function binanceUsdmAt(baseUrl: string, overrides: { secret?: string } = {}) {
  const exchange = new ccxt.binanceusdm({ apiKey: API_KEY, secret: overrides.secret ?? SECRET, enableRateLimit: true, timeout: 300 });
  const api = exchange.urls['api'] as Record<string, string>;
  for (const [key, value] of Object.entries(api)) {
    if (typeof value === 'string') api[key] = value.replace(/^https:\/\/[^/]+/, baseUrl);
  }
  return exchange;
}

const SYMBOL = 'BTC/USDT:USDT';
const fastRetry = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 };

async function rejection(promise: Promise<unknown>): Promise<ExchangeGatewayError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExchangeGatewayError);
  return error as ExchangeGatewayError;
}

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
    expect(orderPosts()[0]!.params).toMatchObject({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.01', price: '39000', newClientOrderId: clientOrderId });
    expect(order).toMatchObject({ clientOrderId, symbol: SYMBOL, side: 'buy', type: 'limit', status: 'open', quantity: 0.01, price: 39_000, filledQuantity: 0, reduceOnly: false });
    expect(order.exchangeOrderId).toBe(String(fake.orders.get(clientOrderId)!.orderId));

    expect(await gateway.fetchOrderByClientId(clientOrderId, SYMBOL, { type: 'limit' })).toMatchObject({ exchangeOrderId: order.exchangeOrderId, status: 'open' });
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
    const unknownSymbol = await rejection(gateway.createOrder({ clientOrderId: newClientOrderId(), symbol: 'DOGE/USDT:USDT', side: 'buy', type: 'market', quantity: 1 }));
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
