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
 * `getFundingRates` of createCcxtMarketData: the real ccxt `binance` class against a local HTTP
 * server that answers what its fetchFundingRateHistory needs: exchangeInfo of spot (/api/v3),
 * USDT-margined (/fapi/v1) and coin-margined (/dapi/v1) markets, and /fapi/v1/fundingRate.
 */

const NOW = Date.parse('2024-01-05T12:34:56.000Z');
const HOUR = 3_600_000;
const EIGHT_HOURS = 8 * HOUR;
const LISTED = Date.parse('2023-12-01T00:00:00.000Z');
const fixedClock: Clock = { now: () => new Date(NOW) };
const BTC = 'BTC/USDT:USDT';
const at = (iso: string) => Date.parse(iso);

/** The fake exchange's funding rate at a funding time: a simple function, so tests can check values. */
const rateAt = (time: number) => Number((((time - LISTED) / EIGHT_HOURS) % 7) * 0.00005 - 0.0001).toFixed(8);

interface FundingCall {
  symbol: string;
  startTime: number;
  limit: number;
}

type Fault = 'http500' | 'http429' | 'timeout' | 'http503';

interface FakeBinance {
  url: string;
  fundingCalls: FundingCall[];
  faults: Fault[];
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

async function startFakeBinance(): Promise<FakeBinance> {
  const fake: FakeBinance = { url: '', fundingCalls: [], faults: [], always: null, close: async () => {} };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const info = (symbols: unknown[]) => json(res, 200, { timezone: 'UTC', serverTime: NOW, rateLimits: [], exchangeFilters: [], symbols });
    if (url.pathname === '/api/v3/exchangeInfo') return info([spot]);
    if (url.pathname === '/fapi/v1/exchangeInfo') return info([perpetual]);
    if (url.pathname === '/dapi/v1/exchangeInfo') return info([]);
    if (url.pathname === '/fapi/v1/fundingRate') {
      const symbol = url.searchParams.get('symbol') ?? '';
      const startTime = Number(url.searchParams.get('startTime') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 100);
      fake.fundingCalls.push({ symbol, startTime, limit });
      const fault = fake.faults.shift() ?? fake.always;
      if (fault === 'http500') return json(res, 500, { code: -1000, msg: 'An unknown error occurred while processing the request.' });
      if (fault === 'http503') return json(res, 503, { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' });
      if (fault === 'http429') return json(res, 429, { code: -1003, msg: 'Too many requests; current limit is 2400 requests per minute.' });
      if (fault === 'timeout') return void setTimeout(() => json(res, 200, []), 1_500);
      if (symbol !== 'BTCUSDT') return json(res, 400, { code: -1121, msg: 'Invalid symbol.' });
      // Like Binance: the events from startTime on, oldest first, at most `limit`, up to now. Its
      // funding times are a few ms after the hour.
      const rows: unknown[] = [];
      for (let t = Math.max(LISTED, Math.ceil((startTime - 5) / EIGHT_HOURS) * EIGHT_HOURS); t <= NOW && rows.length < limit; t += EIGHT_HOURS) {
        if (t + 1 >= startTime) rows.push({ symbol: 'BTCUSDT', fundingTime: t + 1, fundingRate: rateAt(t), markPrice: '42000.00000000' });
      }
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

describe('createCcxtMarketData: funding rates against a local fake of Binance', () => {
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
    createCcxtMarketData({ exchange: binanceAt(fake.url), store, clock: fixedClock, fundingPageLimit: 4, retryDelayMs: 5, maxAttempts: 5, ...overrides });

  it('downloads a range over several pages and returns exactly its events', async () => {
    const { source, series } = await marketData().getFundingRates!({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-03' });
    expect(source).toBe('ccxt:binance');
    expect(series.symbol).toBe(BTC);
    const start = at('2024-01-01T00:00:00Z');
    expect(Array.from(series.time)).toEqual(Array.from({ length: 9 }, (_, i) => start + i * EIGHT_HOURS + 1));
    expect(Array.from(series.rate)).toEqual(Array.from({ length: 9 }, (_, i) => Number(rateAt(start + i * EIGHT_HOURS))));
    // 9 events at 4 a page: each page starts just after the previous page's last event, until one past the range.
    expect(fake.fundingCalls.map((c) => c.startTime)).toEqual([start, start + 3 * EIGHT_HOURS + 2, start + 7 * EIGHT_HOURS + 2]);
    expect(fake.fundingCalls.every((c) => c.symbol === 'BTCUSDT' && c.limit === 4)).toBe(true);
  });

  it('caches complete days: asked again, it makes no call; a longer range fetches only the new days', async () => {
    const md = marketData();
    const first = await md.getFundingRates!({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-02' });
    expect((await store.fundingRates.getChunks('ccxt:binance', BTC, '2024-01-01', '2024-01-02')).map((c) => [c.day, c.count])).toEqual([
      ['2024-01-01', 3],
      ['2024-01-02', 3],
    ]);
    fake.fundingCalls.length = 0;
    const again = await marketData().getFundingRates!({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-02' });
    expect(fake.fundingCalls).toEqual([]);
    expect(Array.from(again.series.rate)).toEqual(Array.from(first.series.rate));

    const longer = await md.getFundingRates!({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-03' });
    expect(longer.series.length).toBe(9);
    expect(Math.min(...fake.fundingCalls.map((c) => c.startTime))).toBe(at('2024-01-03T00:00:00Z'));
  });

  it("returns today's events that have happened, does not cache today, and fetches it again", async () => {
    const md = marketData();
    const { series } = await md.getFundingRates!({ symbol: BTC, startDate: '2024-01-05', endDate: '2024-01-09' });
    // at 12:34 the 00:00 and 08:00 events have happened
    expect(Array.from(series.time)).toEqual([at('2024-01-05T00:00:00Z') + 1, at('2024-01-05T08:00:00Z') + 1]);
    expect(await store.fundingRates.getChunks('ccxt:binance', BTC, '2024-01-05', '2024-01-09')).toEqual([]);
    const calls = fake.fundingCalls.length;
    await md.getFundingRates!({ symbol: BTC, startDate: '2024-01-05', endDate: '2024-01-05' });
    expect(fake.fundingCalls.length).toBeGreaterThan(calls);
  });

  it('caches days before the listing as empty, and answers the listed days of a range that starts before it', async () => {
    const md = marketData();
    const { series } = await md.getFundingRates!({ symbol: BTC, startDate: '2023-11-29', endDate: '2023-12-01' });
    expect(Array.from(series.time)).toEqual([0, 1, 2].map((i) => LISTED + i * EIGHT_HOURS + 1));
    expect(await store.fundingRates.countChunks('ccxt:binance', BTC, '2023-11-29', '2023-12-01')).toEqual({ days: 3, rates: 3 });
    fake.fundingCalls.length = 0;
    const error = await expectStratboxError(md.getFundingRates!({ symbol: BTC, startDate: '2023-11-20', endDate: '2023-11-30' }), 'NOT_FOUND');
    expect(error.message).toContain(`No funding rates of ${BTC} from ccxt:binance for 2023-11-20..2023-11-30`);
  });

  it('retries a page that failed with 500, 429 or a timeout, and succeeds', async () => {
    fake.faults = ['http500', 'http429', 'timeout'];
    const { series } = await marketData().getFundingRates!({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-01' });
    expect(series.length).toBe(3);
    const start = at('2024-01-01T00:00:00Z');
    expect(fake.fundingCalls.map((c) => c.startTime).slice(0, 4)).toEqual([start, start, start, start]);
  });

  it('turns a persistent failure into UNAVAILABLE after a few tries', async () => {
    fake.always = 'http503';
    const error = await expectStratboxError(
      marketData({ maxAttempts: 3 }).getFundingRates!({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-01' }),
      'UNAVAILABLE',
    );
    expect(error.message).toContain(`binance is unavailable: fetchFundingRateHistory for ${BTC} funding rates failed 3 times`);
    expect(fake.fundingCalls.length).toBe(3);
  });

  it('turns an unreachable exchange into UNAVAILABLE', async () => {
    const url = fake.url;
    await fake.close();
    const md = createCcxtMarketData({ exchange: binanceAt(url), store, clock: fixedClock, maxAttempts: 2, retryDelayMs: 5 });
    await expectStratboxError(md.getFundingRates!({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-01' }), 'UNAVAILABLE');
    fake = await startFakeBinance(); // for afterEach
  });

  it('answers NOT_FOUND for a symbol the exchange does not list, and for a spot market, without asking for funding', async () => {
    const unknown = await expectStratboxError(
      marketData().getFundingRates!({ symbol: 'NOPE/USDT:USDT', startDate: '2024-01-01', endDate: '2024-01-01' }),
      'NOT_FOUND',
    );
    expect(unknown.message).toBe('Unknown symbol NOPE/USDT:USDT on binance');
    const spotMarket = await expectStratboxError(
      marketData().getFundingRates!({ symbol: 'BTC/USDT', startDate: '2024-01-01', endDate: '2024-01-01' }),
      'NOT_FOUND',
    );
    expect(spotMarket.message).toContain('BTC/USDT is not a perpetual swap on binance');
    expect(fake.fundingCalls).toEqual([]);
  });
});
