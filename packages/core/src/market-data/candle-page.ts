import { StratboxError } from '../errors/stratbox-error.js';
import type { CandlePage, CandlePageRequest, CandleRequest, CandleSeries, MarketData } from '../ports/market-data.js';
import { allocateSeries, copyCandle, sliceSeries } from './candle-series.js';
import { DAY_MS, type CandleRange } from './candle-range.js';

const DEFAULT_PAGE = 1000;

/** Index of the first candle of `series` opening at or after `timeMs` (binary search). */
function firstAtOrAfter(series: CandleSeries, timeMs: number): number {
  let lo = 0;
  let hi = series.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (series.time[mid]! < timeMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The page of a whole series: its first `limit` candles from `fromMs` on. */
export function pageOfSeries(source: string, series: CandleSeries, fromMs: number | undefined, limit: number): CandlePage {
  const start = fromMs === undefined ? 0 : firstAtOrAfter(series, fromMs);
  const end = Math.min(series.length, start + limit);
  return { source, series: sliceSeries(series, start, end), nextMs: end < series.length ? series.time[end]! : null };
}

/** `marketData.getCandlePage(request)`, or, for a MarketData without it, a slice of `getCandles`. */
export async function readCandlePage(marketData: MarketData, request: CandlePageRequest): Promise<CandlePage> {
  if (marketData.getCandlePage) return marketData.getCandlePage(request);
  const { source, series } = await marketData.getCandles(request);
  return pageOfSeries(source, series, request.fromMs, request.limit);
}

/**
 * A page of a source that reads whole UTC days: `readDays(fromMs, toMs)` answers the candles
 * opening in [fromMs, toMs) (fromMs is a day start; toMs is one too, or `endMs`). Reads the days
 * that hold the page's `limit` candles and the one after (for `nextMs`), from the day of
 * `fromMs` on, doubling the span when days hold fewer candles than their slots; never past `endMs`.
 */
export async function pageByDays(
  window: Pick<CandleRange, 'symbol' | 'timeframe' | 'timeframeMs' | 'startMs' | 'endMs'>,
  request: Pick<CandlePageRequest, 'fromMs' | 'limit'>,
  readDays: (fromMs: number, toMs: number) => Promise<CandleSeries>,
): Promise<Omit<CandlePage, 'source'>> {
  const from = Math.max(window.startMs, request.fromMs ?? window.startMs);
  const want = request.limit + 1;
  const parts: CandleSeries[] = [];
  let have = 0;
  let day = Math.floor(from / DAY_MS) * DAY_MS;
  let span = Math.ceil((from + want * window.timeframeMs) / DAY_MS) * DAY_MS - day;
  while (have < want && day < window.endMs) {
    const to = Math.min(window.endMs, day + span);
    const read = await readDays(day, to);
    const part = sliceSeries(read, firstAtOrAfter(read, from), read.length);
    parts.push(part);
    have += part.length;
    day = to;
    span *= 2;
  }
  const series = allocateSeries(window.symbol, window.timeframe, Math.min(have, want));
  let n = 0;
  for (const part of parts) for (let k = 0; k < part.length && n < series.length; k++) copyCandle(part, k, series, n++);
  if (series.length < want) return { series, nextMs: null };
  return { series: sliceSeries(series, 0, request.limit), nextMs: series.time[request.limit]! };
}

/**
 * One page of `GET /api/market-data/candles`: the very candles a backtest over the same range
 * gets, from the open time carried in the opaque cursor on. It reads only the page (through
 * `getCandlePage` when the MarketData has it), whatever the range.
 */
export async function candlePage(marketData: MarketData, request: CandleRequest, query: { limit?: number | undefined; cursor?: string | undefined }) {
  const fromMs = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const { source, series, nextMs } = await readCandlePage(marketData, { ...request, fromMs, limit: query.limit ?? DEFAULT_PAGE });
  const candles = [];
  for (let i = 0; i < series.length; i++) {
    candles.push({
      time: new Date(series.time[i]!).toISOString(),
      open: series.open[i]!,
      high: series.high[i]!,
      low: series.low[i]!,
      close: series.close[i]!,
      volume: series.volume[i]!,
    });
  }
  return { candles, source, nextCursor: nextMs === null ? null : Buffer.from(`t:${nextMs}`).toString('base64url') };
}

function decodeCursor(cursor: string): number {
  const match = /^t:(-?\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new StratboxError('VALIDATION_FAILED', 'Invalid cursor', [{ path: 'query.cursor', message: 'Not a cursor this API issued' }]);
  return Number(match[1]);
}
