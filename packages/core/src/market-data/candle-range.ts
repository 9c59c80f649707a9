import { StratboxError } from '../errors/stratbox-error.js';
import { TIMEFRAME_MS, type CandleRequest, type TimeframeName } from '../ports/market-data.js';
import { dayOf, dayStartMs } from './candle-series.js';

/** One UTC day in milliseconds. */
export const DAY_MS = 86_400_000;

/** The most candles one request may cover (about 3.8 years of 1m candles). */
export const DEFAULT_MAX_CANDLES = 2_000_000;

/** A validated request: its time window in epoch ms and the timeframe's length. */
export interface CandleRange {
  symbol: string;
  timeframe: TimeframeName;
  timeframeMs: number;
  startDate: string;
  endDate: string;
  /** 00:00 UTC of `startDate`. */
  startMs: number;
  /** 24:00 UTC of `endDate` (exclusive). */
  endMs: number;
  /** How many candle slots the window has. */
  slots: number;
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `name` is a timeframe of `TIMEFRAME_MS`. */
export function isTimeframe(name: string): name is TimeframeName {
  return Object.hasOwn(TIMEFRAME_MS, name);
}

/** 00:00 UTC of a `YYYY-MM-DD` day, or VALIDATION_FAILED naming `field`. */
export function parseDay(value: string, field: string): number {
  const ms = DATE_RE.test(value) ? dayStartMs(value) : Number.NaN;
  if (!Number.isFinite(ms) || dayOf(ms) !== value) {
    throw new StratboxError('VALIDATION_FAILED', `Invalid ${field} "${value}": expected a UTC day YYYY-MM-DD`, [
      { path: field, message: 'Expected a date YYYY-MM-DD' },
    ]);
  }
  return ms;
}

/**
 * Validates a request and turns it into a time window. A malformed date or timeframe, or a
 * window of more than `maxCandles` slots, is VALIDATION_FAILED; a start after the end is
 * NOT_FOUND (there are no candles in such a range).
 */
export function resolveCandleRange(request: CandleRequest, options: { maxCandles?: number | undefined } = {}): CandleRange {
  const { symbol, timeframe, startDate, endDate } = request;
  if (typeof symbol !== 'string' || symbol.length === 0) {
    throw new StratboxError('VALIDATION_FAILED', 'Invalid symbol: expected a market symbol such as BTC/USDT:USDT', [{ path: 'symbol', message: 'Required' }]);
  }
  if (!isTimeframe(timeframe)) {
    throw new StratboxError('VALIDATION_FAILED', `Invalid timeframe "${String(timeframe)}": expected one of ${Object.keys(TIMEFRAME_MS).join(', ')}`, [
      { path: 'timeframe', message: 'Unknown timeframe' },
    ]);
  }
  const startMs = parseDay(startDate, 'startDate');
  const endMs = parseDay(endDate, 'endDate') + DAY_MS;
  if (startMs >= endMs) {
    throw new StratboxError('NOT_FOUND', `No candles of ${symbol} ${timeframe}: startDate ${startDate} is after endDate ${endDate}`);
  }
  const timeframeMs = TIMEFRAME_MS[timeframe];
  const slots = Math.ceil((endMs - startMs) / timeframeMs);
  const maxCandles = options.maxCandles ?? DEFAULT_MAX_CANDLES;
  if (slots > maxCandles) {
    throw new StratboxError(
      'VALIDATION_FAILED',
      `The range ${startDate}..${endDate} holds ${slots} candles of ${timeframe}, more than the limit of ${maxCandles} per symbol: request a shorter range or a longer timeframe`,
      [{ path: 'endDate', message: `At most ${maxCandles} candles per request` }],
    );
  }
  return { symbol, timeframe, timeframeMs, startDate, endDate, startMs, endMs, slots };
}

/** The part [fromMs, toMs) of a validated range, as a range of its own (its days: those it touches). */
export function windowOf(range: CandleRange, fromMs: number, toMs: number): CandleRange {
  return {
    ...range,
    startDate: dayOf(fromMs),
    endDate: dayOf(toMs - 1),
    startMs: fromMs,
    endMs: toMs,
    slots: Math.ceil((toMs - fromMs) / range.timeframeMs),
  };
}

/** How many UTC days [startMs, endMs) touches. */
export function dayCount(startMs: number, endMs: number): number {
  return Math.ceil(endMs / DAY_MS) - Math.floor(startMs / DAY_MS);
}

/** The UTC days `YYYY-MM-DD` of [startMs, endMs), in order. */
export function daysBetween(startMs: number, endMs: number): string[] {
  const days: string[] = [];
  for (let t = Math.floor(startMs / DAY_MS) * DAY_MS; t < endMs; t += DAY_MS) days.push(dayOf(t));
  return days;
}

/** Groups sorted `YYYY-MM-DD` days into runs of consecutive days. */
export function contiguousRuns(days: readonly string[]): Array<{ first: string; last: string }> {
  const runs: Array<{ first: string; last: string }> = [];
  for (const day of days) {
    const current = runs[runs.length - 1];
    if (current && dayStartMs(day) - dayStartMs(current.last) === DAY_MS) current.last = day;
    else runs.push({ first: day, last: day });
  }
  return runs;
}

/** Open time of the first candle that has not closed yet at `nowMs`: candles opening before it are closed. */
export function closedBoundary(nowMs: number, timeframeMs: number): number {
  return Math.floor(nowMs / timeframeMs) * timeframeMs;
}

/** The NOT_FOUND for a range that `source` does not fully cover, naming the first missing day. */
export function missingDataError(
  range: Pick<CandleRange, 'symbol' | 'timeframe' | 'startDate' | 'endDate'>,
  source: string,
  firstMissingDay: string,
  hint?: string,
): StratboxError {
  return new StratboxError(
    'NOT_FOUND',
    `No candles of ${range.symbol} ${range.timeframe} from ${source} for ${firstMissingDay} (requested ${range.startDate}..${range.endDate})${hint ? `: ${hint}` : ''}`,
    { symbol: range.symbol, timeframe: range.timeframe, source, firstMissingDay },
  );
}
