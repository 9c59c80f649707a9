import { StratboxError } from '../errors/stratbox-error.js';
import { createSystemClock, type Clock } from '../ports/clock.js';
import type { CandleRequest, CandleSeries, MarketData } from '../ports/market-data.js';
import type { Store } from '../ports/store.js';
import { dayOf, sliceSeries } from './candle-series.js';
import { closedBoundary, missingDataError, resolveCandleRange } from './candle-range.js';
import { createCachedCandleSource } from './cached-market-data.js';
import { createSyntheticMarketData } from './synthetic-market-data.js';

/**
 * A source that may decline: `find` answers the request, or null when it does not hold the
 * whole range, so the next source is asked. (A plain MarketData never declines: whatever it
 * answers or throws is the answer.)
 */
export interface CandleProvider {
  find(request: CandleRequest): Promise<{ source: string; series: CandleSeries } | null>;
}

export interface MarketDataOptions {
  store: Store;
  /**
   * Asked in order; the first `CandleProvider` that finds the range, or the first plain
   * MarketData, answers. Default: `defaultCandleSources(store)` (CSV imports, then synthetic).
   */
  sources?: ReadonlyArray<CandleProvider | MarketData>;
  /** Decides which candles have closed: later ones are never returned. Default: the system clock. */
  clock?: Clock;
  /** The most candles one request may cover. Default 2,000,000. */
  maxCandles?: number;
}

/**
 * The default order: candles imported from CSV (when the cache holds the whole range under
 * `csv`), then `exchange` if given (e.g. `createCcxtMarketData(...)`), then synthetic candles.
 * With an exchange, synthetic candles are never used: the exchange's answer, data or error, is
 * final.
 */
export function defaultCandleSources(store: Store, exchange?: MarketData): Array<CandleProvider | MarketData> {
  return [createCachedCandleSource(store, 'csv'), ...(exchange ? [exchange] : []), createSyntheticMarketData()];
}

function isProvider(source: CandleProvider | MarketData): source is CandleProvider {
  return typeof (source as Partial<CandleProvider>).find === 'function';
}

/**
 * The MarketData a Stratbox uses for backtests and charts: it validates the request, asks the
 * sources in order, and returns only candles that have closed. A range with no data (a start
 * after the end, a range in the future, days a non-synthetic source lacks) is NOT_FOUND with a
 * message naming the symbol, timeframe and first missing day; a range of more than `maxCandles`
 * candles is VALIDATION_FAILED. Never an empty series.
 */
export function createMarketData(options: MarketDataOptions): MarketData {
  const clock = options.clock ?? createSystemClock();
  const sources = options.sources ?? defaultCandleSources(options.store);
  const maxCandles = options.maxCandles;

  return {
    async getCandles(request) {
      const range = resolveCandleRange(request, maxCandles === undefined ? {} : { maxCandles });
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
      for (const source of sources) {
        const answer = isProvider(source) ? await source.find(clean) : await source.getCandles(clean);
        if (!answer) continue;
        const { series } = answer;
        let end = series.length;
        while (end > 0 && series.time[end - 1]! >= boundary) end--;
        let start = 0;
        while (start < end && series.time[start]! < range.startMs) start++;
        if (end <= start) throw missingDataError(range, answer.source, range.startDate, 'the source holds no closed candles in this range');
        return { source: answer.source, series: start === 0 && end === series.length ? series : sliceSeries(series, start, end) };
      }
      // Every source declined: let the first that can explain what it lacks say so.
      for (const source of sources) {
        if (typeof (source as Partial<MarketData>).getCandles === 'function') await (source as MarketData).getCandles(clean);
      }
      throw missingDataError(range, 'any configured source', range.startDate);
    },
  };
}
