import type { CandlePageRequest, CandleRequest, CandleSeries, MarketData, TimeframeName } from '../ports/market-data.js';
import type { CandleChunkRecord, CandleRepository, Store, StoreRepositories } from '../ports/store.js';
import { allocateSeries, dayOf, dayStartMs, mergeSeries, sliceSeries } from './candle-series.js';
import { DAY_MS, dayCount, daysBetween, missingDataError, resolveCandleRange, windowOf, type CandleRange } from './candle-range.js';
import { pageByDays } from './candle-page.js';
import { packCandleChunk, unpackCandleChunkInto } from './chunk-codec.js';
import type { CandleProvider } from './composite-market-data.js';

/** What the cache holds for a request under one source. */
export interface CachedCandles {
  /** The cached candles that open within the request's range, oldest first. */
  series: CandleSeries;
  /** Days of the range that have no chunk (never written), in order. Days written empty are not missing. */
  missingDays: string[];
}

export interface CandleWriteOptions {
  /**
   * Merge with the candles already cached on the same days (a new candle replaces a cached one
   * with the same time). Default: each day written replaces the cached day entirely.
   */
  merge?: boolean;
  /** Days to write even when `series` has no candle on them (as empty days: "known to hold nothing"). */
  days?: readonly string[];
}

/**
 * Candles in the Store's `candles` repository, one chunk per (source, symbol, timeframe, UTC
 * day). A day that has a chunk is known to the source, even if the chunk is empty.
 */
export interface StoreCandleCache {
  read(source: string, request: CandleRequest | CandleRange): Promise<CachedCandles>;
  /** Writes `series` (oldest first, no duplicate times), split by UTC day; returns the days written. */
  write(source: string, series: CandleSeries, options?: CandleWriteOptions): Promise<string[]>;
  /** The sources that hold any candle of the symbol and timeframe. */
  sources(symbol: string, timeframe: string): Promise<string[]>;
}

function toRange(request: CandleRequest | CandleRange): CandleRange {
  return 'startMs' in request ? request : resolveCandleRange(request);
}

/** Concatenates chunks (in day order) into one series, keeping candles in [fromMs, toMs). */
function chunksToSeries(chunks: CandleChunkRecord[], symbol: string, timeframe: TimeframeName, fromMs: number, toMs: number): CandleSeries {
  let total = 0;
  for (const chunk of chunks) total += chunk.count;
  const series = allocateSeries(symbol, timeframe, total);
  let n = 0;
  for (const chunk of chunks) n += unpackCandleChunkInto(chunk, series, n, fromMs, toMs);
  return sliceSeries(series, 0, n);
}

/** Splits a sorted series into [day, from, to) runs of candles opening on the same UTC day. */
function splitByDay(series: CandleSeries): Array<{ day: string; from: number; to: number }> {
  const runs: Array<{ day: string; from: number; to: number }> = [];
  let from = 0;
  while (from < series.length) {
    const dayIndex = Math.floor(series.time[from]! / DAY_MS);
    const dayEnd = (dayIndex + 1) * DAY_MS;
    let to = from + 1;
    while (to < series.length && series.time[to]! < dayEnd) to++;
    runs.push({ day: dayOf(dayIndex * DAY_MS), from, to });
    from = to;
  }
  return runs;
}

export function createStoreCandleCache(store: Store): StoreCandleCache {
  async function writeWith(candles: CandleRepository, source: string, series: CandleSeries, options: CandleWriteOptions): Promise<string[]> {
    const runs = splitByDay(series);
    const byDay = new Map(runs.map((r) => [r.day, r]));
    for (const day of options.days ?? []) if (!byDay.has(day)) byDay.set(day, { day, from: 0, to: 0 });
    const days = [...byDay.keys()].sort();
    if (days.length === 0) return [];
    const existing = new Map<string, CandleChunkRecord>();
    if (options.merge) {
      for (const chunk of await candles.getChunks(source, series.symbol, series.timeframe, days[0]!, days[days.length - 1]!)) {
        existing.set(chunk.day, chunk);
      }
    }
    const chunks: CandleChunkRecord[] = [];
    for (const day of days) {
      const run = byDay.get(day)!;
      const fresh = sliceSeries(series, run.from, run.to);
      const old = existing.get(day);
      if (old) {
        const dayStart = dayStartMs(day);
        const cached = chunksToSeries([old], series.symbol, series.timeframe, dayStart, dayStart + DAY_MS);
        chunks.push(packCandleChunk(source, day, mergeSeries(cached, fresh)));
      } else {
        chunks.push(packCandleChunk(source, day, fresh));
      }
    }
    await candles.putChunks(chunks);
    return days;
  }

  return {
    async read(source, request) {
      const range = toRange(request);
      const lastDay = dayOf(range.endMs - 1);
      const chunks = await store.candles.getChunks(source, range.symbol, range.timeframe, range.startDate, lastDay);
      let missingDays: string[] = [];
      if (chunks.length < dayCount(range.startMs, range.endMs)) {
        const present = new Set(chunks.map((c) => c.day));
        missingDays = daysBetween(range.startMs, range.endMs).filter((d) => !present.has(d));
      }
      return { series: chunksToSeries(chunks, range.symbol, range.timeframe, range.startMs, range.endMs), missingDays };
    },

    async write(source, series, options = {}) {
      if (!options.merge) return writeWith(store.candles, source, series, options);
      return store.transaction((tx: StoreRepositories) => writeWith(tx.candles, source, series, options));
    },

    sources(symbol, timeframe) {
      return store.candles.listSources(symbol, timeframe);
    },
  };
}

/** Why a cached source cannot answer a range: a day without a chunk, or no candle in its days. */
type Uncovered = 'days missing' | 'no candles';

/**
 * Candles written to the cache under one `source` (by default `csv`, as `importCandlesCsv`
 * writes them). As a provider of `createMarketData` it answers only requests whose every day is
 * cached and which hold at least one candle, and passes the others on; as a MarketData it
 * answers NOT_FOUND naming the first missing day. Whether a range is covered is counted, not
 * read, so a page reads only the chunks of its own days.
 */
export function createCachedCandleSource(store: Store, source = 'csv'): CandleProvider & MarketData {
  const cache = createStoreCandleCache(store);

  const count = (range: CandleRange, fromMs: number, toMs: number) =>
    store.candles.countChunks(source, range.symbol, range.timeframe, dayOf(fromMs), dayOf(toMs - 1));

  /** Whether the cache holds every day of the range and a candle in it: one count, no data read. */
  async function coverage(range: CandleRange): Promise<'covered' | Uncovered> {
    const whole = await count(range, range.startMs, range.endMs);
    if (whole.days < dayCount(range.startMs, range.endMs)) return 'days missing';
    return whole.candles === 0 ? 'no candles' : 'covered';
  }

  /** The NOT_FOUND for a range not covered, naming its first missing day (found by halving the days, a count each). */
  async function notCovered(range: CandleRange, why: Uncovered): Promise<never> {
    if (why === 'no candles') throw missingDataError(range, source, range.startDate, 'the cached days hold no candles');
    let lo = Math.floor(range.startMs / DAY_MS) * DAY_MS;
    let hi = Math.floor((range.endMs - 1) / DAY_MS) * DAY_MS;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / DAY_MS / 2) * DAY_MS;
      if ((await count(range, lo, mid + DAY_MS)).days < (mid - lo) / DAY_MS + 1) hi = mid;
      else lo = mid + DAY_MS;
    }
    throw missingDataError(range, source, dayOf(lo));
  }

  const readAll = async (range: CandleRange) => ({ source, series: (await cache.read(source, range)).series });
  async function readPage(range: CandleRange, request: CandlePageRequest) {
    const { series, nextMs } = await pageByDays(range, request, async (fromMs, toMs) => (await cache.read(source, windowOf(range, fromMs, toMs))).series);
    return { source, series, nextMs };
  }
  /** `read(range)` when the cache covers the whole range, else `otherwise`. */
  async function ifCovered<T>(
    request: CandleRequest,
    read: (range: CandleRange) => Promise<T>,
    otherwise: (range: CandleRange, why: Uncovered) => Promise<T> | T,
  ): Promise<T> {
    const range = toRange(request);
    const why = await coverage(range);
    return why === 'covered' ? read(range) : otherwise(range, why);
  }
  const decline = () => null;

  return {
    find: (request) => ifCovered(request, readAll, decline),
    findPage: (request) => ifCovered(request, (range) => readPage(range, request), decline),
    getCandles: (request) => ifCovered(request, readAll, notCovered),
    getCandlePage: (request) => ifCovered(request, (range) => readPage(range, request), notCovered),
  };
}
