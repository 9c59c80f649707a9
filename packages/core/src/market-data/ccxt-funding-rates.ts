import type { Exchange, FundingRateHistory } from 'ccxt';
import type { Clock } from '../ports/clock.js';
import type { FundingRequest, FundingSeries } from '../ports/market-data.js';
import type { Store } from '../ports/store.js';
import { DAY_MS, contiguousRuns } from './candle-range.js';
import { dayStartMs } from './candle-series.js';
import { createStoreFundingCache } from './cached-funding.js';
import { createKeyedLocks, type CcxtCaller } from './ccxt-calls.js';
import { noFundingError, resolveFundingRange, type FundingRange } from './funding-range.js';
import { allocateFunding, fundingWithin, mergeFunding, sliceFunding } from './funding-series.js';

/*
 * Funding rates of a real exchange through ccxt's `fetchFundingRateHistory`, cached in the
 * Store's funding cache under `ccxt:<exchange id>`, by the same rule as candles: a UTC day is
 * written only once it is over (then it is complete and never fetched again, even if it held no
 * event: before the listing, say); the current day is fetched on every request and never written.
 */

export interface CcxtFundingRatesOptions {
  caller: CcxtCaller;
  store: Store;
  clock: Clock;
  /** Events asked per `fetchFundingRateHistory` call. Default 1000 (the exchange may answer fewer). */
  pageLimit?: number;
}

type FundingAnswer = { source: string; series: FundingSeries };

/**
 * `getFundingRates` of `createCcxtMarketData`: serves each request from the cache and downloads
 * only the days it lacks (paged `fetchFundingRateHistory`, retried like candle calls). Errors: a
 * symbol the exchange does not list, a market that is not a perpetual swap, an exchange without
 * funding history, or a range with no event at all are NOT_FOUND; an exchange that stays
 * unreachable is UNAVAILABLE.
 */
export function createCcxtFundingRates(options: CcxtFundingRatesOptions): { getFundingRates(request: FundingRequest): Promise<FundingAnswer> } {
  const { caller, clock } = options;
  const cache = createStoreFundingCache(options.store);
  const pageLimit = options.pageLimit ?? 1000;
  const inTurn = createKeyedLocks();

  const withRetry = <T>(ex: Exchange, what: string, range: FundingRange, call: (attempt: number) => Promise<T>) =>
    caller.withRetry(ex, what, { symbol: range.symbol, label: `${range.symbol} funding rates` }, call);

  /** Checks that the exchange serves funding history of the symbol, a perpetual swap; NOT_FOUND otherwise. */
  async function checkMarket(ex: Exchange, range: FundingRange, source: string): Promise<void> {
    await withRetry(ex, 'loadMarkets', range, (attempt) => ex.loadMarkets(attempt > 1));
    if (!ex.has?.['fetchFundingRateHistory']) throw noFundingError(range, source, `${ex.id} does not serve funding rate history`);
    const market = await withRetry(ex, 'market lookup', range, async () => ex.market(range.symbol));
    if (!market.swap) throw noFundingError(range, source, `${range.symbol} is not a perpetual swap on ${ex.id}`);
  }

  /** The events at times in [fromMs, toMs), page by page. */
  async function download(ex: Exchange, range: FundingRange, fromMs: number, toMs: number): Promise<FundingRateHistory[]> {
    const rows: FundingRateHistory[] = [];
    let since = fromMs;
    while (since < toMs) {
      const page = await withRetry(ex, 'fetchFundingRateHistory', range, () => ex.fetchFundingRateHistory(range.symbol, since, pageLimit));
      if (page.length === 0) break;
      let last = -Infinity;
      for (const row of page) {
        const t = row.timestamp;
        if (typeof t !== 'number' || !Number.isFinite(t)) continue;
        last = Math.max(last, t);
        if (t >= fromMs && t < toMs && typeof row.fundingRate === 'number' && Number.isFinite(row.fundingRate)) rows.push(row);
      }
      // Past the end, or an exchange that ignores `since` and would answer the same page forever.
      if (last < since) break;
      since = last + 1;
    }
    return rows;
  }

  function toSeries(symbol: string, rows: FundingRateHistory[]): FundingSeries {
    rows.sort((a, b) => a.timestamp! - b.timestamp!);
    const series = allocateFunding(symbol, rows.length);
    let n = 0;
    for (const row of rows) {
      if (n > 0 && series.time[n - 1] === row.timestamp) n--; // a duplicate: keep the later answer
      series.time[n] = row.timestamp!;
      series.rate[n] = row.fundingRate!;
      n++;
    }
    return sliceFunding(series, 0, n);
  }

  async function load(range: FundingRange): Promise<FundingAnswer> {
    const ex = await caller.exchange();
    const source = `ccxt:${ex.id}`;
    const now = clock.now().getTime();
    // Events up to now have happened; days that are over are complete.
    const endMs = Math.min(range.endMs, now + 1);
    if (endMs <= range.startMs) throw noFundingError(range, source, 'the range is in the future');
    const cached = await cache.read(source, range);
    const missing = cached.missingDays.filter((day) => dayStartMs(day) < endMs);
    let series = cached.series;
    if (missing.length > 0) {
      await checkMarket(ex, range, source);
      const rows: FundingRateHistory[] = [];
      for (const run of contiguousRuns(missing)) {
        rows.push(...(await download(ex, range, dayStartMs(run.first), Math.min(dayStartMs(run.last) + DAY_MS, endMs))));
      }
      const fetched = toSeries(range.symbol, rows);
      const completeEnd = Math.floor(now / DAY_MS) * DAY_MS;
      const completeDays = missing.filter((day) => dayStartMs(day) + DAY_MS <= completeEnd);
      if (completeDays.length > 0) await cache.write(source, fundingWithin(fetched, -Infinity, completeEnd), { days: completeDays });
      series = mergeFunding(cached.series, fetched);
    }
    const result = fundingWithin(series, range.startMs, endMs);
    if (result.length === 0) throw noFundingError(range, source, `${ex.id} has no funding event of ${range.symbol} in this range`);
    return { source, series: result };
  }

  return {
    getFundingRates(request) {
      const range = resolveFundingRange(request);
      return inTurn(range.symbol, () => load(range));
    },
  };
}
