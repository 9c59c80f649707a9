import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import ccxt from 'ccxt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { listenLocally } from '../testing/listen-locally.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createCcxtMarketData } from './ccxt-market-data.js';
import { moveExchangeApi } from '../exchanges/move-exchange-api.js';

/*
 * The real ccxt `binance` class against a local HTTP server that answers the three endpoints
 * binance's fetchOHLCV needs: exchangeInfo of spot (/api/v3), USDT-margined (/fapi/v1) and
 * coin-margined (/dapi/v1) markets, loaded by `loadMarkets`, and /fapi/v1/klines.
 */

const NOW = Date.parse('2024-01-05T12:34:56.000Z');
const HOUR = 3_600_000;
const LISTED = Date.parse('2023-12-01T00:00:00.000Z');
const fixedClock: Clock = { now: () => new Date(NOW) };

/** The fake exchange's candle at an open time: a simple function, so tests can check values. */
function kline(openTime: number, step = HOUR): Array<number | string> {
  const base = 40_000 + (openTime - LISTED) / HOUR;
  return [openTime, String(base), String(base + 5), String(base - 5), String(base + 1), '12.5', openTime + step - 1, '500000', 100, '6', '240000', '0'];
}

interface KlineCall {
  symbol: string;
  startTime: number;
  limit: number;
}

type Fault = 'http500' | 'http502' | 'http429' | 'timeout' | 'badSymbol' | 'http503';

interface FakeBinance {
  url: string;
  klineCalls: KlineCall[];
  exchangeInfoCalls: number;
  /** Faults served to the next kline requests, one per request, in order. */
  faults: Fault[];
  /** A fault served to every kline request. */
  always: Fault | null;
  close(): Promise<void>;
}

const perpetual = {
  symbol: 'BTCUSDT',
  pair: 'BTCUSDT',
  contractType: 'PERPETUAL',
  deliveryDate: 4133404800000,
  onboardDate: LISTED,
  status: 'TRADING',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  marginAsset: 'USDT',
  pricePrecision: 2,
  quantityPrecision: 3,
  filters: [
    { filterType: 'PRICE_FILTER', minPrice: '0.10', maxPrice: '4529764', tickSize: '0.10' },
    { filterType: 'LOT_SIZE', minQty: '0.001', maxQty: '1000', stepSize: '0.001' },
  ],
};
const spot = {
  symbol: 'BTCUSDT',
  status: 'TRADING',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  baseAssetPrecision: 8,
  quotePrecision: 8,
  isSpotTradingAllowed: true,
  isMarginTradingAllowed: false,
  permissions: ['SPOT'],
  filters: [
    { filterType: 'PRICE_FILTER', minPrice: '0.01', maxPrice: '1000000', tickSize: '0.01' },
    { filterType: 'LOT_SIZE', minQty: '0.00001', maxQty: '9000', stepSize: '0.00001' },
  ],
};

const INTERVAL_MS: Record<string, number> = { '1m': 60_000, '1h': HOUR, '1d': 24 * HOUR };

async function startFakeBinance(): Promise<FakeBinance> {
  const fake: FakeBinance = { url: '', klineCalls: [], exchangeInfoCalls: 0, faults: [], always: null, close: async () => {} };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const info = (symbols: unknown[]) => {
      fake.exchangeInfoCalls++;
      json(res, 200, { timezone: 'UTC', serverTime: NOW, rateLimits: [], exchangeFilters: [], symbols });
    };
    if (url.pathname === '/api/v3/exchangeInfo') return info([spot]);
    if (url.pathname === '/fapi/v1/exchangeInfo') return info([perpetual]);
    if (url.pathname === '/dapi/v1/exchangeInfo') return info([]);
    if (url.pathname === '/fapi/v1/klines') {
      const symbol = url.searchParams.get('symbol') ?? '';
      const startTime = Number(url.searchParams.get('startTime'));
      const limit = Number(url.searchParams.get('limit') ?? 500);
      const step = INTERVAL_MS[url.searchParams.get('interval') ?? ''];
      fake.klineCalls.push({ symbol, startTime, limit });
      const fault = fake.faults.shift() ?? fake.always;
      if (fault === 'http500') return json(res, 500, { code: -1000, msg: 'An unknown error occurred while processing the request.' });
      if (fault === 'http502') {
        res.writeHead(502, { 'content-type': 'text/html' });
        return res.end('<html><body>502 Bad Gateway</body></html>');
      }
      if (fault === 'http503') return json(res, 503, { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' });
      if (fault === 'http429') return json(res, 429, { code: -1003, msg: 'Too many requests; current limit is 2400 requests per minute.' });
      if (fault === 'badSymbol' || symbol !== 'BTCUSDT') return json(res, 400, { code: -1121, msg: 'Invalid symbol.' });
      if (fault === 'timeout') return void setTimeout(() => json(res, 200, []), 1_500);
      if (!step) return json(res, 400, { code: -1120, msg: 'Invalid interval.' });
      // Like Binance: candles from the first open time >= startTime, up to and including the
      // candle still forming now.
      const rows: unknown[] = [];
      const first = Math.max(LISTED, Math.ceil(startTime / step) * step);
      for (let t = first; t <= NOW && rows.length < limit; t += step) rows.push(kline(t, step));
      return json(res, 200, rows);
    }
    json(res, 404, { code: -5000, msg: `No route ${url.pathname}` });
  };
  const server: Server = createServer(handle);
  const local = await listenLocally(server);
  fake.url = local.url;
  fake.close = local.close;
  return fake;
}

/** The real ccxt binance class with every API base URL moved to `baseUrl`. */
function binanceAt(baseUrl: string): InstanceType<typeof ccxt.binance> {
  const exchange = new ccxt.binance({ enableRateLimit: true, timeout: 400 });
  moveExchangeApi(exchange, baseUrl);
  return exchange;
}

async function expectStratboxError(promise: Promise<unknown>, code: string): Promise<StratboxError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a StratboxError');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StratboxError);
  expect((error as StratboxError).code).toBe(code);
  return error as StratboxError;
}

describe('createCcxtMarketData against a local fake of Binance', () => {
  let fake: FakeBinance;
  let store: Store;

  beforeEach(async () => {
    fake = await startFakeBinance();
    store = createMemoryStore();
  });
  afterEach(async () => {
    await fake.close();
  });

  const marketData = (overrides: { maxAttempts?: number } = {}) =>
    createCcxtMarketData({ exchange: binanceAt(fake.url), store, clock: fixedClock, pageLimit: 10, retryDelayMs: 5, maxAttempts: 5, ...overrides });

  it('downloads a range over several pages and returns exactly its candles', async () => {
    const { source, series } = await marketData().getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-02' });
    expect(source).toBe('ccxt:binance');
    expect(series.length).toBe(48);
    const start = Date.parse('2024-01-01T00:00:00.000Z');
    for (let i = 0; i < 48; i++) {
      expect(series.time[i]).toBe(start + i * HOUR);
      const row = kline(start + i * HOUR);
      expect([series.open[i], series.high[i], series.low[i], series.close[i], series.volume[i]]).toEqual(row.slice(1, 6).map(Number));
    }
    // 48 candles at 10 a page: 5 pages, each starting just after the previous page's last candle.
    expect(fake.klineCalls.map((c) => c.startTime)).toEqual([0, 10, 20, 30, 40].map((i) => start + i * HOUR));
    expect(fake.klineCalls.every((c) => c.symbol === 'BTCUSDT' && c.limit === 10)).toBe(true);
  });

  it('caches complete days: a second request makes no kline call; a longer one fetches only the new days', async () => {
    const md = marketData();
    const first = await md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-02' });
    const chunks = await store.candles.getChunks('ccxt:binance', 'BTC/USDT:USDT', '1h', '2024-01-01', '2024-01-02');
    expect(chunks.map((c) => [c.day, c.count])).toEqual([
      ['2024-01-01', 24],
      ['2024-01-02', 24],
    ]);

    fake.klineCalls.length = 0;
    const again = await marketData().getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-02' });
    expect(fake.klineCalls).toEqual([]);
    expect(Array.from(again.series.close)).toEqual(Array.from(first.series.close));

    const longer = await md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-03' });
    expect(longer.series.length).toBe(72);
    expect(Math.min(...fake.klineCalls.map((c) => c.startTime))).toBe(Date.parse('2024-01-03T00:00:00.000Z'));
  });

  it('returns only the closed candles of today, does not cache today and fetches it again', async () => {
    const md = marketData();
    const { series } = await md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-05', endDate: '2024-01-05' });
    // At 12:34 the candles of 00:00..11:00 are closed; the 12:00 one the exchange sends is not.
    expect(series.length).toBe(12);
    expect(series.time[11]).toBe(Date.parse('2024-01-05T11:00:00.000Z'));
    expect(await store.candles.getChunks('ccxt:binance', 'BTC/USDT:USDT', '1h', '2024-01-05', '2024-01-05')).toEqual([]);
    const calls = fake.klineCalls.length;
    await md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-05', endDate: '2024-01-05' });
    expect(fake.klineCalls.length).toBeGreaterThan(calls);
  });

  it('serves a page by downloading only the days it needs, and the same candles as the whole range', async () => {
    const range = { symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2023-12-01', endDate: '2024-01-31' } as const;
    const md = marketData();
    const first = await md.getCandlePage!({ ...range, limit: 5 });
    expect(first.source).toBe('ccxt:binance');
    const dayOne = Date.parse('2023-12-01T00:00:00.000Z');
    expect(Array.from(first.series.time)).toEqual([0, 1, 2, 3, 4].map((i) => dayOne + i * HOUR));
    expect(first.nextMs).toBe(dayOne + 5 * HOUR);
    // One day downloaded (24 candles, 10 a call), out of the 36 days with candles.
    expect(fake.klineCalls.map((c) => c.startTime)).toEqual([0, 10, 20].map((i) => dayOne + i * HOUR));

    // The last page: today's closed candles, then nothing (the exchange has no later candles: not checked by this page).
    fake.klineCalls.length = 0;
    const today = Date.parse('2024-01-05T00:00:00.000Z');
    const last = await md.getCandlePage!({ ...range, fromMs: today + 10 * HOUR, limit: 50 });
    expect(Array.from(last.series.time)).toEqual([today + 10 * HOUR, today + 11 * HOUR]);
    expect(last.nextMs).toBeNull();
    expect(Math.min(...fake.klineCalls.map((c) => c.startTime))).toBe(today);

    const whole = await md.getCandles({ ...range, endDate: '2023-12-08' });
    const middle = await md.getCandlePage!({ ...range, fromMs: whole.series.time[100]!, limit: 30 });
    expect(Array.from(middle.series.close)).toEqual(Array.from(whole.series.close.subarray(100, 130)));
    expect(middle.nextMs).toBe(whole.series.time[130]);
  });

  it('retries a page that failed with 500, 502, 429 or a timeout, and succeeds', async () => {
    fake.faults = ['http500', 'http502', 'http429', 'timeout'];
    const { series } = await marketData().getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-01' });
    expect(series.length).toBe(24);
    const start = Date.parse('2024-01-01T00:00:00.000Z');
    // The first page was asked five times (four failures, then the answer), then two more pages.
    expect(fake.klineCalls.map((c) => c.startTime)).toEqual([start, start, start, start, start, start + 10 * HOUR, start + 20 * HOUR]);
  });

  it('does not retry a bad symbol: it is NOT_FOUND', async () => {
    fake.always = 'badSymbol';
    const error = await expectStratboxError(
      marketData().getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-01' }),
      'NOT_FOUND',
    );
    expect(error.message).toContain('BTC/USDT:USDT');
    expect(fake.klineCalls.length).toBe(1);
  });

  it('answers NOT_FOUND for a symbol the exchange does not list, without asking for candles', async () => {
    const error = await expectStratboxError(
      marketData().getCandles({ symbol: 'NOPE/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-01' }),
      'NOT_FOUND',
    );
    expect(error.message).toBe('Unknown symbol NOPE/USDT:USDT on binance');
    expect(fake.klineCalls.length).toBe(0);
  });

  it('turns a persistent failure into UNAVAILABLE after a few tries', async () => {
    fake.always = 'http503';
    const error = await expectStratboxError(
      marketData({ maxAttempts: 3 }).getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-01' }),
      'UNAVAILABLE',
    );
    expect(error.message).toContain('binance is unavailable');
    expect(fake.klineCalls.length).toBe(3);
  });

  it('turns an unreachable exchange into UNAVAILABLE', async () => {
    const url = fake.url;
    await fake.close();
    const md = createCcxtMarketData({ exchange: binanceAt(url), store, clock: fixedClock, maxAttempts: 2, retryDelayMs: 5 });
    await expectStratboxError(md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-01' }), 'UNAVAILABLE');
    fake = await startFakeBinance(); // for afterEach
  });

  it('names the first missing day when the exchange has no candles that early', async () => {
    const error = await expectStratboxError(
      marketData().getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1d', startDate: '2023-11-29', endDate: '2023-12-02' }),
      'NOT_FOUND',
    );
    expect(error.message).toContain('BTC/USDT:USDT 1d');
    expect(error.message).toContain('2023-11-29');
  });
});
