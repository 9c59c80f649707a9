import type { IncomingMessage, ServerResponse } from 'node:http';
import { json, listenDouble, signedWith } from './binance-double-http.js';
import {
  answerAccountRoute,
  answerBeforeRoute,
  answerOrderPositionSide,
  answerSignedKey,
  answerSignedTime,
  createFakeBinanceAccount,
  type FakeAnswer,
  type FakeBinanceAccount,
} from './fake-binance-faults.js';
import { answerAlgoOrder } from './fake-binance-order-faults.js';
import { answerListenKey } from './fake-binance-user-stream.js';

/*
 * A local stand-in for Binance USDT-margined futures: the endpoints ccxt's real binanceusdm
 * class calls for markets, balance, positions and orders (exchangeInfo, account,
 * leverageBracket, positionRisk, order create/fetch/cancel, openOrders). Signed requests are
 * checked against the API secret, as Binance does. For tests of exchange gateways and of whole
 * servers with no internet: point the exchange's `urls.api` at `url`. Public klines
 * (/fapi/v1/klines) are `fakeBinanceKline` of each open time, up to the one forming now. Market orders fill at
 * once at MARK and move the one-way position; `orderFaults` make the next order POSTs hang,
 * drop or fail, `readFaults` the next GETs. `account` (see `fake-binance-faults.ts`) holds the
 * account settings a pre-flight check reads and sets (position mode, leverage, margin type,
 * server time) and the faults that stop a client before any order (a refused key, a skewed
 * clock, 429/418 with `Retry-After`).
 */

export const FAKE_BINANCE_API_KEY = 'test-api-key-AAAA1111';
export const FAKE_BINANCE_SECRET = 'test-secret-ZZZZ9999-never-shown';
/** The price market orders fill at, and the mark price of positions. */
export const FAKE_BINANCE_MARK = 40_000;
const MARK = FAKE_BINANCE_MARK;

/**
 * Forms in which an exchange or a proxy might echo a key back: exact, URL-encoded (once and
 * twice), upper and lower case, JSON-escaped, base64 (alone, URL-safe, and inside
 * `base64(key:secret)` as in Basic auth), hex, and cut into groups by separators. For tests that
 * check none of them reaches a user or a log.
 */
export function secretEchoes(key: string, secret = 'other-secret'): string[] {
  return [
    key,
    encodeURIComponent(key),
    encodeURIComponent(encodeURIComponent(key)),
    key.toUpperCase(),
    key.toLowerCase(),
    JSON.stringify(key).slice(1, -1),
    Buffer.from(key).toString('base64'),
    Buffer.from(key).toString('base64url'),
    Buffer.from(`${key}:${secret}`).toString('base64'),
    Buffer.from(key).toString('hex'),
    key.match(/.{1,4}/g)!.join(' '),
    key.split('').join('-'),
  ];
}

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

const KLINE_INTERVAL_MS: Record<string, number> = { '1m': 60_000, '5m': 300_000, '15m': 900_000, '1h': 3_600_000, '4h': 14_400_000, '1d': 86_400_000 };

/**
 * The fake's kline (Binance's 12 fields) at an open time: prices follow the open time, so a
 * test can tell which candle it got.
 */
export function fakeBinanceKline(openTime: number, interval = '1h'): Array<number | string> {
  const step = KLINE_INTERVAL_MS[interval] ?? 3_600_000;
  const base = 30_000 + ((openTime / 60_000) % 10_000);
  return [openTime, String(base), String(base + 5), String(base - 5), String(base + 1), '12.5', openTime + step - 1, '500000', 100, '6', '240000', '0'];
}

/** Binance's answer to GET /fapi/v1/klines: from the first open time >= startTime, at most `limit`, up to the candle forming now. */
function klines(params: Record<string, string>): { status: number; body: unknown } {
  const interval = params['interval'] ?? '';
  const step = KLINE_INTERVAL_MS[interval];
  if (params['symbol'] !== perpetual.symbol) return { status: 400, body: { code: -1121, msg: 'Invalid symbol.' } };
  if (!step) return { status: 400, body: { code: -1120, msg: 'Invalid interval.' } };
  const limit = Math.min(1500, Number(params['limit'] ?? 500));
  const end = Math.min(Date.now(), params['endTime'] ? Number(params['endTime']) : Infinity);
  const rows: unknown[] = [];
  const first = Math.max(perpetual.onboardDate, Math.ceil(Number(params['startTime'] ?? 0) / step) * step);
  for (let t = first; t <= end && rows.length < limit; t += step) rows.push(fakeBinanceKline(t, interval));
  return { status: 200, body: rows };
}

/** What the next POST /fapi/v1/order does instead of answering normally. */
export type OrderFault =
  | 'hang' // records the order, never answers (the client times out)
  | 'drop' // records nothing, never answers
  | 'http429' // refuses: too many requests
  | 'insufficient' // refuses: balance insufficient
  | 'http503' // records the order, then answers 503 (outcome unknown to the client)
  | 'expire'; // records the order and answers it EXPIRED with nothing filled (a market order that found no liquidity)

export interface FakeOrder {
  orderId: number;
  clientOrderId: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  type: string;
  origQty: string;
  price: string;
  stopPrice: string;
  reduceOnly: boolean;
  status: 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'EXPIRED';
  executedQty: string;
  avgPrice: string;
  time: number;
}

export interface FakeBinanceCall {
  method: string;
  path: string;
  params: Record<string, string>;
  /** When the request arrived (ms). */
  at: number;
}

export interface FakeBinance {
  url: string;
  orders: Map<string, FakeOrder>;
  calls: FakeBinanceCall[];
  orderFaults: OrderFault[];
  /** Faults of the next GET requests of any path. */
  readFaults: Array<'http429' | 'http418'>;
  position: { amt: string; entry: string };
  /** The price a market order of this side fills at (default: MARK). */
  marketFillPrice?: (side: 'BUY' | 'SELL') => number;
  /**
   * The commission rate of every fill, charged in USDT on its notional and listed on the account's
   * trades (GET /fapi/v1/userTrades), as Binance does: its order answers carry no fee. Default 0.
   */
  commissionRate: number;
  /** Called when an order POST arrives, before it is answered. */
  onOrderPost?: (order: FakeOrder | null) => void;
  /**
   * The body of the 401 a signed request with a wrong API key gets, made from the key it sent
   * (default: Binance's `{"code":-2014,...}`). For tests of exchanges and proxies that echo the
   * key back, in any form; a body not starting with `{` is sent as text/plain.
   */
  unauthorizedBody?: (apiKey: string) => string;
  /** Account settings and account-level faults: see `fake-binance-faults.ts`. */
  account: FakeBinanceAccount;
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

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeBinance(): Promise<FakeBinance> {
  const fake: FakeBinance = {
    url: '',
    orders: new Map(),
    calls: [],
    orderFaults: [],
    readFaults: [],
    position: { amt: '0.000', entry: '0.0' },
    commissionRate: 0,
    account: createFakeBinanceAccount(),
    close: async () => {},
  };
  let nextOrderId = 1000;
  const send = (res: ServerResponse, answer: FakeAnswer) => {
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const query = url.search.slice(1);
    const raw = req.method === 'POST' ? body : query;
    const params = Object.fromEntries(new URLSearchParams(raw));
    fake.calls.push({ method: req.method ?? '', path: url.pathname, params, at: Date.now() });
    const early = answerBeforeRoute(fake.account, req.method ?? '', url.pathname, req.headers['x-mbx-apikey'] !== undefined);
    if (early) return send(res, early);

    if (req.method === 'GET') {
      const fault = fake.readFaults.shift();
      if (fault === 'http429') return json(res, 429, { code: -1003, msg: 'Too many requests; current limit is 2400 requests per minute.' });
      if (fault === 'http418') return json(res, 418, { code: -1003, msg: 'Way too many requests; IP banned until later.' });
    }
    if (url.pathname === '/fapi/v1/exchangeInfo')
      return json(res, 200, { timezone: 'UTC', serverTime: Date.now(), rateLimits: [], exchangeFilters: [], symbols: [perpetual] });
    if (url.pathname.startsWith('/sapi/')) return json(res, 200, []);
    if (url.pathname === '/fapi/v1/klines') {
      const answer = klines(params);
      return json(res, answer.status, answer.body);
    }

    // Everything below is signed: check the key and the HMAC of the payload, as Binance does.
    const refused = answerSignedKey(fake.account, String(req.headers['x-mbx-apikey'] ?? ''));
    if (refused) return send(res, refused);
    const apiKey = req.headers['x-mbx-apikey'];
    if (apiKey !== FAKE_BINANCE_API_KEY) {
      if (!fake.unauthorizedBody) return json(res, 401, { code: -2014, msg: 'API-key format invalid.' });
      const text = fake.unauthorizedBody(String(apiKey ?? ''));
      res.writeHead(401, { 'content-type': text.startsWith('{') ? 'application/json' : 'text/plain' });
      return res.end(text);
    }
    // The user-data stream's listen key takes the API key and no signature (fake-binance-user-stream.ts).
    const listenKey = answerListenKey(fake, req.method ?? '', url.pathname);
    if (listenKey) return send(res, listenKey);
    if (!signedWith(FAKE_BINANCE_SECRET, raw, params)) return json(res, 400, { code: -1022, msg: 'Signature for this request is not valid.' });
    const late = answerSignedTime(fake.account, params) ?? answerAccountRoute(fake.account, req.method ?? '', url.pathname, params);
    if (late) return send(res, late);

    const algo = answerAlgoOrder(fake, req.method ?? '', url.pathname);
    if (algo) return send(res, algo);

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
        return json(res, 200, [
          { symbol: 'BTCUSDT', brackets: [{ bracket: 1, initialLeverage: 125, notionalCap: 50_000, notionalFloor: 0, maintMarginRatio: 0.004, cum: 0 }] },
        ]);
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
        const hedged = answerOrderPositionSide(fake.account, params);
        if (hedged) return send(res, hedged);
        const clientOrderId = params['newClientOrderId'] ?? `x-${nextOrderId}`;
        if (fake.orders.has(clientOrderId) && fake.orders.get(clientOrderId)!.status === 'NEW') {
          return json(res, 400, { code: -4015, msg: 'Client order id is not valid.' });
        }
        const market = params['type'] === 'MARKET' && fault !== 'expire';
        const side = params['side'] === 'SELL' ? 'SELL' : 'BUY';
        const fillPrice = market ? (fake.marketFillPrice?.(side) ?? MARK) : 0;
        const order: FakeOrder = {
          orderId: nextOrderId++,
          clientOrderId,
          symbol: params['symbol'] ?? '',
          side,
          type: params['type'] ?? 'LIMIT',
          origQty: params['quantity'] ?? '0',
          price: params['price'] ?? '0',
          stopPrice: params['stopPrice'] ?? '0',
          reduceOnly: params['reduceOnly'] === 'true',
          status: market ? 'FILLED' : fault === 'expire' ? 'EXPIRED' : 'NEW',
          executedQty: market ? (params['quantity'] ?? '0') : '0',
          avgPrice: market ? String(fillPrice) : '0',
          time: Date.now(),
        };
        fake.orders.set(clientOrderId, order);
        if (market) {
          // A market fill moves the one-way position.
          const signed = Number(fake.position.amt) + (order.side === 'BUY' ? 1 : -1) * Number(order.origQty);
          fake.position = { amt: signed.toFixed(3), entry: signed === 0 ? '0.0' : String(fillPrice) };
        }
        fake.onOrderPost?.(order);
        if (fault === 'hang') return; // recorded, never answered
        if (fault === 'http503') return json(res, 503, { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' });
        return json(res, 200, orderBody(order));
      }
      case 'GET /fapi/v1/order': {
        const order = findOrder();
        return order ? json(res, 200, orderBody(order)) : json(res, 400, { code: -2013, msg: 'Order does not exist.' });
      }
      case 'GET /fapi/v1/userTrades':
        // The trades of one order (`orderId`), with their commission: the only place Binance futures tell an order's fee.
        return json(
          res,
          200,
          [...fake.orders.values()]
            .filter((o) => String(o.orderId) === params['orderId'] && Number(o.executedQty) > 0)
            .map((o) => {
              const quote = Number(o.executedQty) * Number(o.avgPrice);
              return {
                symbol: o.symbol,
                id: o.orderId,
                orderId: o.orderId,
                side: o.side,
                price: o.avgPrice,
                qty: o.executedQty,
                realizedPnl: '0',
                quoteQty: String(quote),
                commission: String(quote * fake.commissionRate),
                commissionAsset: 'USDT',
                time: o.time,
                positionSide: 'BOTH',
                buyer: o.side === 'BUY',
                maker: o.type !== 'MARKET',
              };
            }),
        );
      case 'GET /fapi/v1/algoOrder':
        return json(res, 400, { code: -2013, msg: 'Order does not exist.' });
      case 'DELETE /fapi/v1/order': {
        const order = findOrder();
        if (!order || !(order.status === 'NEW' || order.status === 'PARTIALLY_FILLED')) return json(res, 400, { code: -2011, msg: 'Unknown order sent.' });
        order.status = 'CANCELED';
        return json(res, 200, orderBody(order));
      }
      case 'GET /fapi/v1/openOrders':
        return json(
          res,
          200,
          [...fake.orders.values()]
            .filter((o) => (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED') && (params['symbol'] === undefined || o.symbol === params['symbol']))
            .map(orderBody),
        );
      default:
        return json(res, 404, { code: -5000, msg: `No route ${req.method} ${url.pathname}` });
    }
  };

  const local = await listenDouble(handle);
  fake.url = local.url;
  fake.close = local.close;
  return fake;
}
