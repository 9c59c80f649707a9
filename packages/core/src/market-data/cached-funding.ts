import type { FundingRequest, FundingSeries } from '../ports/market-data.js';
import type { FundingChunkRecord, FundingRateRepository, Store, StoreRepositories } from '../ports/store.js';
import { DAY_MS, dayCount, daysBetween } from './candle-range.js';
import { dayOf, dayStartMs } from './candle-series.js';
import { packFundingChunk, unpackFundingChunkInto } from './funding-codec.js';
import { noFundingError, resolveFundingRange, type FundingRange } from './funding-range.js';
import { allocateFunding, mergeFunding, sliceFunding } from './funding-series.js';

/** What the cache holds for a request under one source. */
export interface CachedFunding {
  /** The cached events within the request's range, oldest first. */
  series: FundingSeries;
  /** Days of the range that have no chunk (never written), in order. Days written empty are not missing. */
  missingDays: string[];
}

export interface FundingWriteOptions {
  /** Merge with the events already cached on the same days (a new event replaces one at the same time). Default: each day written replaces the cached day. */
  merge?: boolean;
  /** Days to write even when `series` has no event on them (as empty days: "known to hold none"). */
  days?: readonly string[];
}

/** Funding rates in the Store's `fundingRates` repository, one chunk per (source, symbol, UTC day). */
export interface StoreFundingCache {
  read(source: string, request: FundingRequest | FundingRange): Promise<CachedFunding>;
  /** Writes `series` (oldest first, no duplicate times), split by UTC day; returns the days written. */
  write(source: string, series: FundingSeries, options?: FundingWriteOptions): Promise<string[]>;
}

/**
 * A source of funding rates that may decline: `findFunding` answers the request, or null when it
 * does not hold the whole range, so the next source is asked (as `CandleProvider.find`).
 */
export interface FundingProvider {
  findFunding(request: FundingRequest): Promise<{ source: string; series: FundingSeries } | null>;
}

const toRange = (request: FundingRequest | FundingRange): FundingRange => ('startMs' in request ? request : resolveFundingRange(request));

function chunksToSeries(chunks: FundingChunkRecord[], symbol: string, fromMs: number, toMs: number): FundingSeries {
  let total = 0;
  for (const chunk of chunks) total += chunk.count;
  const series = allocateFunding(symbol, total);
  let n = 0;
  for (const chunk of chunks) n += unpackFundingChunkInto(chunk, series, n, fromMs, toMs);
  return sliceFunding(series, 0, n);
}

export function createStoreFundingCache(store: Store): StoreFundingCache {
  async function writeWith(repository: FundingRateRepository, source: string, series: FundingSeries, options: FundingWriteOptions): Promise<string[]> {
    const byDay = new Map<string, { from: number; to: number }>();
    for (let from = 0; from < series.length; ) {
      const dayEnd = (Math.floor(series.time[from]! / DAY_MS) + 1) * DAY_MS;
      let to = from + 1;
      while (to < series.length && series.time[to]! < dayEnd) to++;
      byDay.set(dayOf(series.time[from]!), { from, to });
      from = to;
    }
    for (const day of options.days ?? []) if (!byDay.has(day)) byDay.set(day, { from: 0, to: 0 });
    const days = [...byDay.keys()].sort();
    if (days.length === 0) return [];
    const existing = new Map<string, FundingChunkRecord>();
    if (options.merge) {
      for (const chunk of await repository.getChunks(source, series.symbol, days[0]!, days[days.length - 1]!)) existing.set(chunk.day, chunk);
    }
    const chunks = days.map((day) => {
      const run = byDay.get(day)!;
      const fresh = sliceFunding(series, run.from, run.to);
      const old = existing.get(day);
      if (!old) return packFundingChunk(source, day, fresh);
      const start = dayStartMs(day);
      return packFundingChunk(source, day, mergeFunding(chunksToSeries([old], series.symbol, start, start + DAY_MS), fresh));
    });
    await repository.putChunks(chunks);
    return days;
  }

  return {
    async read(source, request) {
      const range = toRange(request);
      const chunks = await store.fundingRates.getChunks(source, range.symbol, range.startDate, dayOf(range.endMs - 1));
      let missingDays: string[] = [];
      if (chunks.length < dayCount(range.startMs, range.endMs)) {
        const present = new Set(chunks.map((c) => c.day));
        missingDays = daysBetween(range.startMs, range.endMs).filter((d) => !present.has(d));
      }
      return { series: chunksToSeries(chunks, range.symbol, range.startMs, range.endMs), missingDays };
    },

    async write(source, series, options = {}) {
      if (!options.merge) return writeWith(store.fundingRates, source, series, options);
      return store.transaction((tx: StoreRepositories) => writeWith(tx.fundingRates, source, series, options));
    },
  };
}

/**
 * Funding rates written to the cache under one `source` (by default `csv`, as
 * `importFundingCsv` writes them). As a provider it answers only requests whose every day is
 * cached and which hold at least one event (counted, not read), and declines the others; its
 * `getFundingRates` answers NOT_FOUND for them instead.
 */
export function createCachedFundingSource(store: Store, source = 'csv') {
  const cache = createStoreFundingCache(store);
  async function covered(request: FundingRequest): Promise<FundingRange | null> {
    const range = resolveFundingRange(request);
    const count = await store.fundingRates.countChunks(source, range.symbol, range.startDate, range.endDate);
    return count.days === dayCount(range.startMs, range.endMs) && count.rates > 0 ? range : null;
  }
  const read = async (range: FundingRange) => ({ source, series: (await cache.read(source, range)).series });
  return {
    async findFunding(request: FundingRequest) {
      const range = await covered(request);
      return range ? read(range) : null;
    },
    async getFundingRates(request: FundingRequest) {
      const range = await covered(request);
      if (!range) throw noFundingError(resolveFundingRange(request), source, 'the cache does not hold every day of the range');
      return read(range);
    },
  } satisfies FundingProvider & { getFundingRates(request: FundingRequest): Promise<{ source: string; series: FundingSeries }> };
}

/**
 * Funding rates downloaded from exchanges into the cache (sources `ccxt:<exchange id>`, in name
 * order): the first that holds the whole range answers; none does: declines. Calls no exchange.
 */
export function createDownloadedFundingSource(store: Store): FundingProvider {
  return {
    async findFunding(request) {
      const sources = (await store.fundingRates.listSources(request.symbol)).filter((name) => name.startsWith('ccxt:')).sort();
      for (const source of sources) {
        const answer = await createCachedFundingSource(store, source).findFunding(request);
        if (answer) return answer;
      }
      return null;
    },
  };
}
