import type { IncomingMessage, ServerResponse } from 'node:http';
import { json, listenDouble, signedWith } from './binance-double-http.js';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_MARK, FAKE_BINANCE_SECRET, fakeBinanceKline } from './fake-binance-usdm.js';

/*
 * A local stand-in for Binance SPOT: the endpoints ccxt's real `binance` class calls for spot
 * markets (with `fetchMarkets: { types: ['spot'] }` and `fetchCurrencies: false`), the account's
 * balances, and order create/fetch/cancel/openOrders under /api/v3, signed like Binance (the
 * HMAC-SHA256 of the query with the secret; the same key and secret as the USDT-M double). One
 * market, BTCUSDT: amount step 0.00001, minimum notional 5 USDT. A market order fills at once at
 * `price` and moves the balances; a buy pays its fee in the base asset (`baseFeeRate` of the
 * quantity, as Binance does without BNB), a sell in the quote. Limit orders rest (they hold their
 * balance) until cancelled. A sell of more than the free base balance is refused (-2010).
 */

export interface FakeSpotOrder {
  orderId: number;
  clientOrderId: string;
  symbol: string;
  side: 'BUY' | 'SELL';
  type: string;
  origQty: string;
  price: string;
  status: 'NEW' | 'FILLED' | 'CANCELED';
  executedQty: string;
  cummulativeQuoteQty: string;
  /** Fee of the fill and its asset (the answer to the order POST lists it in `fills`). */
  commission: string;
  commissionAsset: string;
  time: number;
}

export interface FakeBinanceSpotCall {
  method: string;
  path: string;
  params: Record<string, string>;
}

export interface FakeBinanceSpot {
  url: string;
  /** Balances by asset: `free` may be traded, `locked` is held by resting orders. Change them freely. */
  balances: Record<string, { free: number; locked: number }>;
  orders: Map<string, FakeSpotOrder>;
  calls: FakeBinanceSpotCall[];
  /** The price market orders fill at (default FAKE_BINANCE_MARK). */
  price: number;
  /** Fee of a buy, taken in the base asset, as a fraction of its quantity (default 0.001). */
  baseFeeRate: number;
  /** Fee of a sell, taken in the quote asset, as a fraction of its notional (default 0.001). */
  quoteFeeRate: number;
  /** Filters of BTCUSDT (change them before ccxt loads the markets). */
  filters: { stepSize: string; minQty: string; minNotional: string };
  close(): Promise<void>;
}

export const FAKE_SPOT_SYMBOL = 'BTC/USDT';

/** Rounds a balance to 8 decimals, as Binance shows them. */
const round8 = (n: number) => Number(n.toFixed(8));

function market(filters: FakeBinanceSpot['filters']) {
  return {
    symbol: 'BTCUSDT',
    status: 'TRADING',
    baseAsset: 'BTC',
    baseAssetPrecision: 8,
    quoteAsset: 'USDT',
    quotePrecision: 8,
    quoteAssetPrecision: 8,
    baseCommissionPrecision: 8,
    quoteCommissionPrecision: 8,
    orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
    icebergAllowed: true,
    ocoAllowed: true,
    quoteOrderQtyMarketAllowed: true,
    allowTrailingStop: true,
    cancelReplaceAllowed: true,
    isSpotTradingAllowed: true,
    isMarginTradingAllowed: false,
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: '0.01000000', maxPrice: '1000000.00000000', tickSize: '0.01000000' },
      { filterType: 'LOT_SIZE', minQty: filters.minQty, maxQty: '9000.00000000', stepSize: filters.stepSize },
      {
        filterType: 'NOTIONAL',
        minNotional: filters.minNotional,
        applyMinToMarket: true,
        maxNotional: '9000000.00000000',
        applyMaxToMarket: false,
        avgPriceMins: 5,
      },
    ],
    permissions: ['SPOT'],
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'],
  };
}

const orderBody = (o: FakeSpotOrder, fills: boolean) => ({
  symbol: o.symbol,
  orderId: o.orderId,
  orderListId: -1,
  clientOrderId: o.clientOrderId,
  price: o.price,
  origQty: o.origQty,
  executedQty: o.executedQty,
  cummulativeQuoteQty: o.cummulativeQuoteQty,
  status: o.status,
  timeInForce: 'GTC',
  type: o.type,
  side: o.side,
  time: o.time,
  updateTime: o.time,
  transactTime: o.time,
  workingTime: o.time,
  // GET /api/v3/order has no fills (as on Binance): only the order POST's answer says what the fee was.
  ...(fills && o.status === 'FILLED'
    ? {
        fills: [
          {
            price: String(Number(o.cummulativeQuoteQty) / Number(o.executedQty)),
            qty: o.executedQty,
            commission: o.commission,
            commissionAsset: o.commissionAsset,
            tradeId: o.orderId,
          },
        ],
      }
    : {}),
});

const balanceOf = (fake: FakeBinanceSpot, asset: string) => (fake.balances[asset] ??= { free: 0, locked: 0 });
const moveFree = (fake: FakeBinanceSpot, asset: string, delta: number) => {
  const b = balanceOf(fake, asset);
  b.free = round8(b.free + delta);
};

/** Fills a resting limit order at its price, as a match on the book would: the balances move, the fee is taken as for a market order. */
export function fillSpotOrder(fake: FakeBinanceSpot, clientOrderId: string): FakeSpotOrder {
  const order = fake.orders.get(clientOrderId);
  if (!order || order.status !== 'NEW') throw new Error(`No resting order ${clientOrderId}`);
  const quantity = Number(order.origQty);
  const price = Number(order.price);
  const notional = quantity * price;
  const fee = order.side === 'BUY' ? round8(quantity * fake.baseFeeRate) : round8(notional * fake.quoteFeeRate);
  const held = order.side === 'BUY' ? { asset: 'USDT', amount: notional } : { asset: 'BTC', amount: quantity };
  balanceOf(fake, held.asset).locked = round8(balanceOf(fake, held.asset).locked - held.amount);
  if (order.side === 'BUY') moveFree(fake, 'BTC', quantity - fee);
  else moveFree(fake, 'USDT', notional - fee);
  Object.assign(order, { status: 'FILLED', executedQty: order.origQty, cummulativeQuoteQty: String(notional), commission: String(fee) });
  return order;
}

/** Starts the spot double on a free port of 127.0.0.1, with 10,000 USDT and no BTC. */
export async function startFakeBinanceSpot(): Promise<FakeBinanceSpot> {
  const fake: FakeBinanceSpot = {
    url: '',
    balances: { USDT: { free: 10_000, locked: 0 }, BTC: { free: 0, locked: 0 } },
    orders: new Map(),
    calls: [],
    price: FAKE_BINANCE_MARK,
    baseFeeRate: 0.001,
    quoteFeeRate: 0.001,
    filters: { stepSize: '0.00001000', minQty: '0.00001000', minNotional: '5.00000000' },
    close: async () => {},
  };
  let nextOrderId = 5000;

  function place(params: Record<string, string>): { status: number; body: unknown } {
    if (params['symbol'] !== 'BTCUSDT') return { status: 400, body: { code: -1121, msg: 'Invalid symbol.' } };
    const clientOrderId = params['newClientOrderId'] ?? `x-${nextOrderId}`;
    if (fake.orders.has(clientOrderId)) return { status: 400, body: { code: -2010, msg: 'Duplicate order sent.' } };
    const quantity = Number(params['quantity']);
    const step = Number(fake.filters.stepSize);
    if (!(quantity > 0) || Math.abs(Math.round(quantity / step) * step - quantity) > 1e-12) {
      return { status: 400, body: { code: -1013, msg: 'Filter failure: LOT_SIZE' } };
    }
    const type = params['type'] ?? 'LIMIT';
    const price = type === 'MARKET' ? fake.price : Number(params['price']);
    if (quantity * price < Number(fake.filters.minNotional)) return { status: 400, body: { code: -1013, msg: 'Filter failure: NOTIONAL' } };
    const side = params['side'] === 'SELL' ? 'SELL' : 'BUY';
    const spend = side === 'BUY' ? { asset: 'USDT', amount: quantity * price } : { asset: 'BTC', amount: quantity };
    if (balanceOf(fake, spend.asset).free + 1e-12 < spend.amount) {
      return { status: 400, body: { code: -2010, msg: 'Account has insufficient balance for requested action.' } };
    }
    const order: FakeSpotOrder = {
      orderId: nextOrderId++,
      clientOrderId,
      symbol: 'BTCUSDT',
      side,
      type,
      origQty: params['quantity'] ?? '0',
      price: type === 'MARKET' ? '0.00000000' : String(price),
      status: 'NEW',
      executedQty: '0.00000000',
      cummulativeQuoteQty: '0.00000000',
      commission: '0',
      commissionAsset: side === 'BUY' ? 'BTC' : 'USDT',
      time: Date.now(),
    };
    fake.orders.set(clientOrderId, order);
    if (type !== 'MARKET') {
      // A resting order holds what it would spend.
      moveFree(fake, spend.asset, -spend.amount);
      balanceOf(fake, spend.asset).locked = round8(balanceOf(fake, spend.asset).locked + spend.amount);
      return { status: 200, body: orderBody(order, true) };
    }
    const notional = quantity * price;
    const fee = side === 'BUY' ? round8(quantity * fake.baseFeeRate) : round8(notional * fake.quoteFeeRate);
    if (side === 'BUY') {
      moveFree(fake, 'USDT', -notional);
      moveFree(fake, 'BTC', quantity - fee);
    } else {
      moveFree(fake, 'BTC', -quantity);
      moveFree(fake, 'USDT', notional - fee);
    }
    Object.assign(order, { status: 'FILLED', executedQty: params['quantity'], cummulativeQuoteQty: String(notional), commission: String(fee) });
    return { status: 200, body: orderBody(order, true) };
  }

  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const query = url.search.slice(1);
    const raw = req.method === 'POST' ? body || query : query;
    const params = Object.fromEntries(new URLSearchParams(raw));
    fake.calls.push({ method: req.method ?? '', path: url.pathname, params });

    if (url.pathname === '/api/v3/exchangeInfo')
      return json(res, 200, { timezone: 'UTC', serverTime: Date.now(), rateLimits: [], exchangeFilters: [], symbols: [market(fake.filters)] });
    // ccxt asks for the margin pairs to mark spot markets as margin-tradable: none here.
    if (url.pathname.startsWith('/sapi/v1/margin/')) return json(res, 200, []);
    // ccxt asks the futures clock when the client's default sub-type is linear (as the client pool sets it): one clock.
    if (url.pathname === '/api/v3/time' || url.pathname === '/fapi/v1/time') return json(res, 200, { serverTime: Date.now() });
    if (url.pathname === '/api/v3/klines') return json(res, 200, [fakeBinanceKline(Math.floor(Date.now() / 60_000) * 60_000 - 60_000, '1m')]);

    // Everything below is signed: check the key and the HMAC of the payload, as Binance does.
    if (req.headers['x-mbx-apikey'] !== FAKE_BINANCE_API_KEY) return json(res, 401, { code: -2014, msg: 'API-key format invalid.' });
    if (!signedWith(FAKE_BINANCE_SECRET, raw, params)) return json(res, 400, { code: -1022, msg: 'Signature for this request is not valid.' });

    const findOrder = () => {
      if (params['origClientOrderId'] !== undefined) return fake.orders.get(params['origClientOrderId']);
      return [...fake.orders.values()].find((o) => String(o.orderId) === params['orderId']);
    };
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /api/v3/account':
        return json(res, 200, {
          makerCommission: 10,
          takerCommission: 10,
          canTrade: true,
          canWithdraw: true,
          canDeposit: true,
          updateTime: Date.now(),
          accountType: 'SPOT',
          balances: Object.entries(fake.balances).map(([asset, b]) => ({ asset, free: b.free.toFixed(8), locked: b.locked.toFixed(8) })),
          permissions: ['SPOT'],
        });
      case 'POST /api/v3/order': {
        const answer = place(params);
        return json(res, answer.status, answer.body);
      }
      case 'GET /api/v3/order': {
        const order = findOrder();
        return order ? json(res, 200, orderBody(order, false)) : json(res, 400, { code: -2013, msg: 'Order does not exist.' });
      }
      case 'DELETE /api/v3/order': {
        const order = findOrder();
        if (!order || order.status !== 'NEW') return json(res, 400, { code: -2011, msg: 'Unknown order sent.' });
        order.status = 'CANCELED';
        const held =
          order.side === 'BUY' ? { asset: 'USDT', amount: Number(order.origQty) * Number(order.price) } : { asset: 'BTC', amount: Number(order.origQty) };
        balanceOf(fake, held.asset).locked = round8(balanceOf(fake, held.asset).locked - held.amount);
        moveFree(fake, held.asset, held.amount);
        return json(res, 200, orderBody(order, false));
      }
      case 'GET /api/v3/myTrades':
        // The trades of one order (`orderId`), with their fees: how a client learns the fee of an order that filled while resting.
        return json(
          res,
          200,
          [...fake.orders.values()]
            .filter((o) => String(o.orderId) === params['orderId'] && Number(o.executedQty) > 0)
            .map((o) => ({
              symbol: o.symbol,
              id: o.orderId,
              orderId: o.orderId,
              orderListId: -1,
              price: String(Number(o.cummulativeQuoteQty) / Number(o.executedQty)),
              qty: o.executedQty,
              quoteQty: o.cummulativeQuoteQty,
              commission: o.commission,
              commissionAsset: o.commissionAsset,
              time: o.time,
              isBuyer: o.side === 'BUY',
              isMaker: o.type !== 'MARKET',
              isBestMatch: true,
            })),
        );
      case 'GET /api/v3/openOrders':
        return json(
          res,
          200,
          [...fake.orders.values()]
            .filter((o) => o.status === 'NEW' && (params['symbol'] === undefined || o.symbol === params['symbol']))
            .map((o) => orderBody(o, false)),
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
