import { createSystemClock, type Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { TimeframeName } from '../ports/market-data.js';
import type { Store } from '../ports/store.js';
import { DAY_MS, closedBoundary, daysBetween, missingDataError, resolveCandleRange } from './candle-range.js';
import { createCcxtMarketData, type CcxtMarketDataOptions } from './ccxt-market-data.js';

export interface DownloadCandlesOptions {
  store: Store;
  /** A ccxt exchange instance (as `createCcxtMarketData` takes), e.g. from `createCcxtExchange('binance')`. */
  exchange: Extract<CcxtMarketDataOptions['exchange'], { id: string }>;
  symbol: string;
  timeframe: TimeframeName;
  /** First and last UTC day, `YYYY-MM-DD`, both included. */
  startDate: string;
  endDate: string;
  /** Decides which candles have closed (only those are downloaded). Default: the system clock. */
  clock?: Clock;
  logger?: Logger;
  /** Days asked of the exchange at a time, between progress reports. Default: about 5,000 candles' worth, at least one day. */
  batchDays?: number;
  /** Called after each batch of days, and once before the first. */
  onProgress?: (progress: DownloadProgress) => void;
  /** Passed to `createCcxtMarketData` (retries, page size). */
  pageLimit?: number;
  maxAttempts?: number;
  retryDelayMs?: number;
}

export interface DownloadProgress {
  /** Days of the range that have closed candles (the days a download covers). */
  days: number;
  /** Days done so far: found in the cache or downloaded. */
  doneDays: number;
}

export interface DownloadCandlesResult {
  /** The cache source the candles are under: `ccxt:<exchange id>`. */
  source: string;
  days: number;
  /** Days that were already cached, so not asked of the exchange. */
  cachedDays: number;
  /** Days asked of the exchange (the current day, never cached while it lasts, is asked every time). */
  downloadedDays: number;
  /** Candles the range holds, cached and downloaded. */
  candles: number;
}

/** About how many candles one batch covers, so progress moves at a steady pace whatever the timeframe. */
const CANDLES_PER_BATCH = 5_000;

/**
 * Downloads the closed candles of a range from an exchange through ccxt into the Store's candle
 * cache (source `ccxt:<exchange id>`, as `createCcxtMarketData` reads and writes it), a batch of
 * days at a time. Resumable: days already cached are skipped without asking the exchange, so a
 * download that was interrupted, or is run again, fetches only what is missing. Errors are those
 * of `createCcxtMarketData` (NOT_FOUND naming the first day the exchange has no candles for,
 * UNAVAILABLE, VALIDATION_FAILED); batches finished before an error stay cached.
 */
export async function downloadCandles(options: DownloadCandlesOptions): Promise<DownloadCandlesResult> {
  const { store, exchange, symbol, timeframe } = options;
  const clock = options.clock ?? createSystemClock();
  const range = resolveCandleRange({ symbol, timeframe, startDate: options.startDate, endDate: options.endDate }, { maxCandles: Number.POSITIVE_INFINITY });
  const source = `ccxt:${exchange.id}`;
  const endMs = Math.min(range.endMs, closedBoundary(clock.now().getTime(), range.timeframeMs));
  if (endMs <= range.startMs) throw missingDataError(range, source, range.startDate, 'the range has no closed candles yet');
  const days = daysBetween(range.startMs, endMs);
  const batchDays = Math.max(1, options.batchDays ?? Math.floor((CANDLES_PER_BATCH * range.timeframeMs) / DAY_MS));
  const marketData = createCcxtMarketData({
    exchange,
    store,
    clock,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.pageLimit ? { pageLimit: options.pageLimit } : {}),
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.retryDelayMs !== undefined ? { retryDelayMs: options.retryDelayMs } : {}),
  });

  const result: DownloadCandlesResult = { source, days: days.length, cachedDays: 0, downloadedDays: 0, candles: 0 };
  options.onProgress?.({ days: days.length, doneDays: 0 });
  for (let first = 0; first < days.length; first += batchDays) {
    const batch = days.slice(first, first + batchDays);
    const firstDay = batch[0]!;
    const lastDay = batch[batch.length - 1]!;
    const cached = await store.candles.countChunks(source, symbol, timeframe, firstDay, lastDay);
    if (cached.days === batch.length) {
      result.candles += cached.candles;
    } else {
      const { series } = await marketData.getCandles({ symbol, timeframe, startDate: firstDay, endDate: lastDay });
      result.candles += series.length;
      result.downloadedDays += batch.length - cached.days;
    }
    result.cachedDays += cached.days;
    options.onProgress?.({ days: days.length, doneDays: first + batch.length });
  }
  return result;
}
