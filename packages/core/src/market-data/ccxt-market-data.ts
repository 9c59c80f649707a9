import type { Exchange, OHLCV } from 'ccxt';
import type { CcxtExchange } from '../exchanges/ccxt-exchange.js';
import { StratboxError } from '../errors/stratbox-error.js';
import { createSystemClock, type Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { CandleSeries, MarketData } from '../ports/market-data.js';
import type { Store } from '../ports/store.js';
import { allocateSeries, dayOf, dayStartMs, mergeSeries, sliceSeries } from './candle-series.js';
import { DAY_MS, closedBoundary, contiguousRuns, missingDataError, resolveCandleRange, windowOf, type CandleRange } from './candle-range.js';
import { createStoreCandleCache } from './cached-market-data.js';
import { pageByDays } from './candle-page.js';
import { createCcxtCaller, createKeyedLocks } from './ccxt-calls.js';
import { createCcxtFundingRates } from './ccxt-funding-rates.js';

/*
 * Candles (and, through ccxt-funding-rates.ts, funding rates) of a real exchange through ccxt,
 * cached in the Store under `ccxt:<exchange id>`.
 *
 * ccxt is only a type import here: loading it takes about half a second, so the caller passes
 * an exchange instance (or a factory), and `createCcxtExchange` loads ccxt with a dynamic
 * import only when it is called.
 *
 * Cache rule: a day is written only once all its candles have closed, so a cached day is a
 * complete day and is never fetched again; the current day (or any day not yet over) is fetched
 * on every request and never written.
 */

export interface CcxtMarketDataOptions {
  /** A ccxt exchange instance (with `enableRateLimit: true`, ccxt's default), or a factory of one. */
  exchange: CcxtExchange | (() => CcxtExchange | Promise<CcxtExchange>);
  store: Store;
  /** Decides which candles have closed. Default: the system clock. */
  clock?: Clock;
  /** Candles asked per `fetchOHLCV` call. Default 1000 (the exchange may answer fewer). */
  pageLimit?: number;
  /** Funding events asked per `fetchFundingRateHistory` call. Default 1000 (the exchange may answer fewer). */
  fundingPageLimit?: number;
  /** Tries per call when ccxt reports a network problem, timeout or rate limit. Default 4. */
  maxAttempts?: number;
  /** First pause before a retry; doubled at each further try. Default 1000 ms. */
  retryDelayMs?: number;
  /** The most candles one request may cover. Default 2,000,000. */
  maxCandles?: number;
  logger?: Logger;
}

/**
 * Builds a ccxt exchange by id (`binance`, `bybit`, ...) with the rate limiter on, loading ccxt
 * on first use. An unknown id is VALIDATION_FAILED.
 */
export async function createCcxtExchange(id: string, config: Record<string, unknown> = {}): Promise<CcxtExchange> {
  const ccxt = await import('ccxt');
  const classes = ccxt.exchanges as unknown as Record<string, new (config: Record<string, unknown>) => Exchange>;
  // The pro class where ccxt has one: the same REST calls, plus the private streams (watchOrders) deployments use.
  const pro = (ccxt as unknown as { pro?: Record<string, unknown> }).pro ?? {};
  const ProClass = Object.hasOwn(pro, id) && typeof pro[id] === 'function' ? (pro[id] as new (config: Record<string, unknown>) => Exchange) : undefined;
  const ExchangeClass = ProClass ?? (Object.hasOwn(classes, id) ? classes[id] : undefined);
  if (typeof ExchangeClass !== 'function') {
    throw new StratboxError('VALIDATION_FAILED', `Unknown ccxt exchange "${id}"`, [{ path: 'exchange', message: 'Not a ccxt exchange id' }]);
  }
  return new ExchangeClass({ enableRateLimit: true, ...config });
}

/**
 * MarketData of one exchange via ccxt: serves each request from the Store's candle cache and
 * downloads only the days it lacks (paginated `fetchOHLCV`, retried with exponential backoff
 * on network errors, timeouts and rate limits), then caches the completed days. A range the
 * exchange has no candles for is NOT_FOUND naming the first missing day; an unknown symbol is
 * NOT_FOUND; an exchange that stays unreachable is UNAVAILABLE.
 */
export function createCcxtMarketData(options: CcxtMarketDataOptions): MarketData {
  const clock = options.clock ?? createSystemClock();
  const cache = createStoreCandleCache(options.store);
  const pageLimit = options.pageLimit ?? 1000;
  const caller = createCcxtCaller(options);
  const exchange = caller.exchange;
  /** One download at a time per (symbol, timeframe), so concurrent requests share the cache. */
  const inTurn = createKeyedLocks();
  const funding = createCcxtFundingRates({ caller, store: options.store, clock, ...(options.fundingPageLimit ? { pageLimit: options.fundingPageLimit } : {}) });

  /** `caller.withRetry` naming the candles of `range` in its errors. */
  const withRetry = <T>(ex: Exchange, what: string, range: CandleRange, call: (attempt: number) => Promise<T>) =>
    caller.withRetry(ex, what, { symbol: range.symbol, label: `${range.symbol} ${range.timeframe}` }, call);

  /** Downloads the closed candles opening in [fromMs, toMs), page by page. */
  async function download(ex: Exchange, range: CandleRange, fromMs: number, toMs: number): Promise<OHLCV[]> {
    const rows: OHLCV[] = [];
    let since = fromMs;
    while (since < toMs) {
      const page = await withRetry(ex, 'fetchOHLCV', range, () => ex.fetchOHLCV(range.symbol, range.timeframe, since, pageLimit));
      if (page.length === 0) break;
      let last = -Infinity;
      for (const row of page) {
        const t = row[0];
        if (typeof t !== 'number') continue;
        last = Math.max(last, t);
        if (t >= fromMs && t < toMs && t % range.timeframeMs === 0) rows.push(row);
      }
      // Past the end, or an exchange that ignores `since` and would answer the same page forever.
      if (last < since) break;
      since = last + range.timeframeMs;
    }
    return rows;
  }

  function toSeries(range: CandleRange, rows: OHLCV[]): CandleSeries {
    rows.sort((a, b) => (a[0] as number) - (b[0] as number));
    const series = allocateSeries(range.symbol, range.timeframe, rows.length);
    let n = 0;
    for (const row of rows) {
      const [t, o, h, l, c, v] = row as number[];
      if (n > 0 && series.time[n - 1] === t) n--; // a duplicate: keep the later answer
      series.time[n] = t!;
      series.open[n] = Number(o);
      series.high[n] = Number(h);
      series.low[n] = Number(l);
      series.close[n] = Number(c);
      series.volume[n] = Number(v ?? 0);
      n++;
    }
    return sliceSeries(series, 0, n);
  }

  /**
   * The candles of `window` (whole days of `range`, by default all of it), from the cache or
   * downloaded; errors name the requested `range`.
   */
  async function load(range: CandleRange, window = range): Promise<{ source: string; series: CandleSeries }> {
    const ex = await exchange();
    const source = `ccxt:${ex.id}`;
    const boundary = closedBoundary(clock.now().getTime(), range.timeframeMs);
    const endMs = Math.min(window.endMs, boundary);
    if (endMs <= window.startMs) {
      throw missingDataError(range, source, window.startDate, 'the range has no closed candles yet');
    }
    const cached = await cache.read(source, window);
    const missing = cached.missingDays.filter((day) => dayStartMs(day) < endMs);
    let fetched: CandleSeries | undefined;
    if (missing.length > 0) {
      await withRetry(ex, 'loadMarkets', range, (attempt) => ex.loadMarkets(attempt > 1));
      if (ex.has?.['fetchOHLCV'] === false) {
        throw new StratboxError('UNAVAILABLE', `${ex.id} does not serve candles (fetchOHLCV)`);
      }
      if (ex.timeframes && Object.keys(ex.timeframes).length > 0 && ex.timeframes[range.timeframe] === undefined) {
        throw new StratboxError('VALIDATION_FAILED', `${ex.id} has no ${range.timeframe} candles`, [{ path: 'timeframe', message: `Not offered by ${ex.id}` }]);
      }
      await withRetry(ex, 'market lookup', range, async () => ex.market(range.symbol));
      const rows: OHLCV[] = [];
      for (const run of contiguousRuns(missing)) {
        const from = dayStartMs(run.first);
        const to = Math.min(dayStartMs(run.last) + DAY_MS, endMs);
        rows.push(...(await download(ex, range, from, to)));
      }
      fetched = toSeries(range, rows);
      // Cache the days that are over and hold candles; a day not yet over is fetched again next time.
      const completeEnd = Math.floor(boundary / DAY_MS) * DAY_MS;
      let end = 0;
      while (end < fetched.length && fetched.time[end]! < completeEnd) end++;
      if (end > 0) await cache.write(source, sliceSeries(fetched, 0, end));
    }
    const series = fetched ? mergeSeries(cached.series, fetched) : cached.series;
    let end = series.length;
    while (end > 0 && series.time[end - 1]! >= endMs) end--;
    const result = sliceSeries(series, 0, end);
    const firstEmpty = firstDayWithoutCandles(result, window.startMs, endMs);
    if (firstEmpty !== null) {
      const hint =
        result.length > 0
          ? `${ex.id} has candles of this range from ${dayOf(result.time[0]!)} to ${dayOf(result.time[result.length - 1]!)}, with no candle that day`
          : `${ex.id} has no candles in this range`;
      throw missingDataError(range, source, firstEmpty, hint);
    }
    return { source, series: result };
  }

  /** Runs `load` after the running one of the same (symbol, timeframe), if any. */
  function loadInTurn(range: CandleRange, window = range): Promise<{ source: string; series: CandleSeries }> {
    return inTurn(`${range.symbol}\u0000${range.timeframe}`, () => load(range, window));
  }

  return {
    getCandles: (request) => loadInTurn(resolveCandleRange(request, options)),

    // Reads (and downloads) only the days of the page, so only those days are checked.
    async getCandlePage(request) {
      const range = resolveCandleRange(request, options);
      const endMs = Math.min(range.endMs, closedBoundary(clock.now().getTime(), range.timeframeMs));
      // No closed candle in the range: the whole-range load says so, downloading nothing.
      if (endMs <= range.startMs) return { ...(await loadInTurn(range)), nextMs: null };
      const source = `ccxt:${(await exchange()).id}`;
      const page = await pageByDays({ ...range, endMs }, request, async (fromMs, toMs) => (await loadInTurn(range, windowOf(range, fromMs, toMs))).series);
      return { source, ...page };
    },

    getFundingRates: funding.getFundingRates,
  };
}

/** The first UTC day of [startMs, endMs) on which no candle opens, or null. */
function firstDayWithoutCandles(series: CandleSeries, startMs: number, endMs: number): string | null {
  let k = 0;
  for (let day = startMs; day < endMs; day += DAY_MS) {
    while (k < series.length && series.time[k]! < day) k++;
    if (k >= series.length || series.time[k]! >= day + DAY_MS) return dayOf(day);
  }
  return null;
}
