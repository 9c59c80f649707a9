import type { CandleRequest, CandleSeries, MarketData, TimeframeName } from '../ports/market-data.js';
import type { CandleChunkRecord, CandleRepository, Store, StoreRepositories } from '../ports/store.js';
import { allocateSeries, dayOf, dayStartMs, mergeSeries, sliceSeries } from './candle-series.js';
import { DAY_MS, daysBetween, missingDataError, resolveCandleRange, type CandleRange } from './candle-range.js';
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
      const dayCount = Math.round((range.endMs - range.startMs) / DAY_MS);
      let missingDays: string[] = [];
      if (chunks.length < dayCount) {
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

/**
 * Candles written to the cache under one `source` (by default `csv`, as `importCandlesCsv`
 * writes them). As a provider of `createMarketData` it answers only requests whose every day is
 * cached and which hold at least one candle, and passes the others on; as a MarketData it
 * answers NOT_FOUND naming the first missing day.
 */
export function createCachedCandleSource(store: Store, source = 'csv'): CandleProvider & MarketData {
  const cache = createStoreCandleCache(store);
  return {
    async find(request) {
      const range = toRange(request);
      if (!(await cache.sources(range.symbol, range.timeframe)).includes(source)) return null;
      const { series, missingDays } = await cache.read(source, range);
      if (missingDays.length > 0 || series.length === 0) return null;
      return { source, series };
    },
    async getCandles(request) {
      const range = toRange(request);
      const { series, missingDays } = await cache.read(source, range);
      if (missingDays.length > 0) throw missingDataError(range, source, missingDays[0]!);
      if (series.length === 0) throw missingDataError(range, source, range.startDate, 'the cached days hold no candles');
      return { source, series };
    },
  };
}
