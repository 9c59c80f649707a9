import { StratboxError } from '../errors/stratbox-error.js';
import { createSystemClock, type Clock } from '../ports/clock.js';
import type { CandlePage, CandlePageRequest, CandleRequest, CandleSeries, FundingRequest, FundingSeries, MarketData } from '../ports/market-data.js';
import type { Store } from '../ports/store.js';
import { dayOf, sliceSeries } from './candle-series.js';
import { closedBoundary, missingDataError, resolveCandleRange, type CandleRange } from './candle-range.js';
import { createCachedCandleSource } from './cached-market-data.js';
import { pageOfSeries, readCandlePage } from './candle-page.js';
import { createSyntheticMarketData } from './synthetic-market-data.js';
import { createCachedFundingSource, createDownloadedFundingSource, type FundingProvider } from './cached-funding.js';
import { noFundingError, resolveFundingRange } from './funding-range.js';
import { fundingWithin } from './funding-series.js';

/**
 * A source that may decline: `find` answers the request, or null when it does not hold the
 * whole range, so the next source is asked. (A plain MarketData never declines: whatever it
 * answers or throws is the answer.)
 */
export interface CandleProvider {
  find(request: CandleRequest): Promise<{ source: string; series: CandleSeries } | null>;
  /** Optional: one page of what `find` answers, or null exactly when `find` is (see `MarketData.getCandlePage`). */
  findPage?(request: CandlePageRequest): Promise<CandlePage | null>;
}

export interface MarketDataOptions {
  store: Store;
  /**
   * Asked in order; the first `CandleProvider` that finds the range, or the first plain
   * MarketData, answers. Default: `defaultCandleSources(store)` (CSV imports, then synthetic).
   */
  sources?: ReadonlyArray<CandleProvider | MarketData>;
  /**
   * Where funding rates come from, asked in order like `sources`: the first `FundingProvider`
   * that finds the range, or the first source with `getFundingRates`, answers. Default:
   * `defaultFundingSources(store, sources)`: funding imported from CSV, funding downloaded from
   * an exchange, then every source of `sources` that has `getFundingRates` (by default the
   * synthetic one), so funding comes from where candles would.
   */
  fundingSources?: ReadonlyArray<FundingProvider | FundingAnswerer>;
  /** Decides which candles have closed and which funding events have happened: later ones are never returned. Default: the system clock. */
  clock?: Clock;
  /** The most candles one request may cover. Default 2,000,000. */
  maxCandles?: number;
}

/**
 * The default order: candles imported from CSV (when the cache holds the whole range under
 * `csv`), then candles downloaded from an exchange (`downloadCandles`: when one `ccxt:<id>`
 * source of the cache holds the whole range), then `exchange` if given (e.g.
 * `createCcxtMarketData(...)`), then synthetic candles. With an exchange, synthetic candles are
 * never used: the exchange's answer, data or error, is final.
 */
export function defaultCandleSources(store: Store, exchange?: MarketData): Array<CandleProvider | MarketData> {
  return [createCachedCandleSource(store, 'csv'), createDownloadedCandleSource(store), ...(exchange ? [exchange] : []), createSyntheticMarketData()];
}

/** A source that answers every funding request (data or error), as `MarketData.getFundingRates`. */
export interface FundingAnswerer {
  getFundingRates(request: FundingRequest): Promise<{ source: string; series: FundingSeries }>;
}

/**
 * The default order of funding sources: funding rates imported from CSV (`importFundingCsv`,
 * when the cache holds the whole range under `csv`), then downloaded from an exchange
 * (`downloadFundingRates`, sources `ccxt:<id>`), then the sources of `candleSources` that have
 * `getFundingRates` (an exchange's `createCcxtMarketData`, the synthetic generator), in their
 * order. With an exchange among them, synthetic funding is never used.
 */
export function defaultFundingSources(
  store: Store,
  candleSources: ReadonlyArray<CandleProvider | MarketData> = defaultCandleSources(store),
): Array<FundingProvider | FundingAnswerer> {
  const answerers = candleSources.filter((s): s is MarketData & FundingAnswerer => typeof (s as Partial<MarketData>).getFundingRates === 'function');
  return [createCachedFundingSource(store, 'csv'), createDownloadedFundingSource(store), ...answerers];
}

function isFundingProvider(source: FundingProvider | FundingAnswerer): source is FundingProvider {
  return typeof (source as Partial<FundingProvider>).findFunding === 'function';
}

/**
 * Candles downloaded from exchanges into the cache (sources `ccxt:<exchange id>`, in name
 * order): the first that holds the whole range answers; none does: declines. Reading them
 * calls no exchange.
 */
export function createDownloadedCandleSource(store: Store): CandleProvider {
  async function first<T>(request: CandleRequest, ask: (source: CandleProvider) => Promise<T | null>): Promise<T | null> {
    const sources = (await store.candles.listSources(request.symbol, request.timeframe)).filter((name) => name.startsWith('ccxt:')).sort();
    for (const source of sources) {
      const answer = await ask(createCachedCandleSource(store, source));
      if (answer) return answer;
    }
    return null;
  }
  return {
    find: (request) => first(request, (source) => source.find(request)),
    findPage: (request) => first(request, (source) => findCandlePage(source, request)),
  };
}

function isProvider(source: CandleProvider | MarketData): source is CandleProvider {
  return typeof (source as Partial<CandleProvider>).find === 'function';
}

/** `provider.findPage(request)`, or, for a provider without it, a slice of `find`. */
async function findCandlePage(provider: CandleProvider, request: CandlePageRequest): Promise<CandlePage | null> {
  if (provider.findPage) return provider.findPage(request);
  const answer = await provider.find(request);
  return answer && pageOfSeries(answer.source, answer.series, request.fromMs, request.limit);
}

/**
 * The MarketData a Stratbox uses for backtests and charts: it validates the request, asks the
 * sources in order, and returns only candles that have closed (and, from `getFundingRates`, only
 * funding events that have happened, from `fundingSources`). A range with no data (a start
 * after the end, a range in the future, days a non-synthetic source lacks) is NOT_FOUND with a
 * message naming the symbol, timeframe and first missing day; a range of more than `maxCandles`
 * candles is VALIDATION_FAILED. Never an empty series. `getCandlePage` asks the sources for the
 * page only (with the same choice of source and the same errors), so a page costs the same
 * whatever the range.
 */
export function createMarketData(options: MarketDataOptions): MarketData {
  const clock = options.clock ?? createSystemClock();
  const sources = options.sources ?? defaultCandleSources(options.store);
  const fundingSources = options.fundingSources ?? defaultFundingSources(options.store, sources);
  const maxCandles = options.maxCandles;

  /** The validated range, its first unclosed candle, and the request the sources get (up to the last day with closed candles). */
  function prepare(request: CandleRequest) {
    const range = resolveCandleRange(request, { maxCandles });
    const boundary = closedBoundary(clock.now().getTime(), range.timeframeMs);
    if (boundary <= range.startMs) {
      throw new StratboxError(
        'NOT_FOUND',
        `No candles of ${range.symbol} ${range.timeframe} for ${range.startDate}..${range.endDate}: the range is in the future (first missing day ${range.startDate})`,
        { symbol: range.symbol, timeframe: range.timeframe, firstMissingDay: range.startDate },
      );
    }
    // Days after the last closed candle hold nothing yet: ask only up to that day.
    const lastDay = dayOf(Math.min(range.endMs, boundary) - 1);
    const clean: CandleRequest = { symbol: range.symbol, timeframe: range.timeframe, startDate: range.startDate, endDate: lastDay };
    return { range, boundary, clean };
  }

  /** Asks the sources in order; if every one declines, lets the first that can explain what it lacks say so. */
  async function ask<T>(find: (provider: CandleProvider) => Promise<T | null>, get: (source: MarketData) => Promise<T>, range: CandleRange): Promise<T> {
    for (const source of sources) {
      const answer = isProvider(source) ? await find(source) : await get(source);
      if (answer) return answer;
    }
    for (const source of sources) {
      if (typeof (source as Partial<MarketData>).getCandles === 'function') await get(source as MarketData);
    }
    throw missingDataError(range, 'any configured source', range.startDate);
  }

  const noClosedCandles = (range: CandleRange, source: string) =>
    missingDataError(range, source, range.startDate, 'the source holds no closed candles in this range');

  return {
    async getCandles(request) {
      const { range, boundary, clean } = prepare(request);
      const answer = await ask(
        (p) => p.find(clean),
        (m) => m.getCandles(clean),
        range,
      );
      const { series } = answer;
      let end = series.length;
      while (end > 0 && series.time[end - 1]! >= boundary) end--;
      let start = 0;
      while (start < end && series.time[start]! < range.startMs) start++;
      if (end <= start) throw noClosedCandles(range, answer.source);
      return { source: answer.source, series: start === 0 && end === series.length ? series : sliceSeries(series, start, end) };
    },

    async getCandlePage(request) {
      const { range, boundary, clean } = prepare(request);
      const fromMs = Math.max(range.startMs, request.fromMs ?? range.startMs);
      const pageRequest: CandlePageRequest = { ...clean, fromMs, limit: request.limit };
      const answer = await ask(
        (p) => findCandlePage(p, pageRequest),
        (m) => readCandlePage(m, pageRequest),
        range,
      );
      const { series } = answer;
      let end = series.length;
      while (end > 0 && series.time[end - 1]! >= boundary) end--;
      if (end === 0 && fromMs === range.startMs) throw noClosedCandles(range, answer.source);
      const nextMs = end < series.length || answer.nextMs === null || answer.nextMs >= boundary ? null : answer.nextMs;
      return { source: answer.source, series: end === series.length ? series : sliceSeries(series, 0, end), nextMs };
    },

    // Asks the funding sources for the days up to today, and keeps the events that have happened.
    async getFundingRates(request) {
      const range = resolveFundingRange(request);
      const now = clock.now().getTime();
      if (now < range.startMs) throw noFundingError(range, 'any configured source', 'the range is in the future');
      const clean: FundingRequest = { symbol: range.symbol, startDate: range.startDate, endDate: dayOf(Math.min(range.endMs - 1, now)) };
      for (const source of fundingSources) {
        const answer = isFundingProvider(source) ? await source.findFunding(clean) : await source.getFundingRates(clean);
        if (!answer) continue;
        const series = fundingWithin(answer.series, range.startMs, Math.min(range.endMs, now + 1));
        if (series.length === 0) throw noFundingError(range, answer.source, 'the source holds no funding event that has happened in this range');
        return { source: answer.source, series };
      }
      throw noFundingError(range, 'any configured source');
    },
  };
}
