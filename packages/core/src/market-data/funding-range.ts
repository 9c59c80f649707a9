import { StratboxError } from '../errors/stratbox-error.js';
import type { FundingRequest } from '../ports/market-data.js';
import { DAY_MS, parseDay } from './candle-range.js';

/** The most UTC days one funding request may cover (about 270 years: at three events a day, 300,000 events). */
export const DEFAULT_MAX_FUNDING_DAYS = 100_000;

/** A validated funding request: its time window in epoch ms. */
export interface FundingRange {
  symbol: string;
  startDate: string;
  endDate: string;
  /** 00:00 UTC of `startDate`. */
  startMs: number;
  /** 24:00 UTC of `endDate` (exclusive). */
  endMs: number;
}

/**
 * Validates a funding request and turns it into a time window. A missing symbol, a malformed
 * date or more than `maxDays` days is VALIDATION_FAILED; a start after the end is NOT_FOUND
 * (there is no funding in such a range), as for candles.
 */
export function resolveFundingRange(request: FundingRequest, options: { maxDays?: number | undefined } = {}): FundingRange {
  const { symbol, startDate, endDate } = request;
  if (typeof symbol !== 'string' || symbol.length === 0) {
    throw new StratboxError('VALIDATION_FAILED', 'Invalid symbol: expected a market symbol such as BTC/USDT:USDT', [{ path: 'symbol', message: 'Required' }]);
  }
  const startMs = parseDay(startDate, 'startDate');
  const endMs = parseDay(endDate, 'endDate') + DAY_MS;
  if (startMs >= endMs) {
    throw new StratboxError('NOT_FOUND', `No funding rates of ${symbol}: startDate ${startDate} is after endDate ${endDate}`);
  }
  const maxDays = options.maxDays ?? DEFAULT_MAX_FUNDING_DAYS;
  const days = (endMs - startMs) / DAY_MS;
  if (days > maxDays) {
    throw new StratboxError(
      'VALIDATION_FAILED',
      `The range ${startDate}..${endDate} covers ${days} days, more than the limit of ${maxDays} per funding request`,
      [{ path: 'endDate', message: `At most ${maxDays} days per request` }],
    );
  }
  return { symbol, startDate, endDate, startMs, endMs };
}

/** The NOT_FOUND for a range in which `source` has no funding event. */
export function noFundingError(range: Pick<FundingRange, 'symbol' | 'startDate' | 'endDate'>, source: string, hint?: string): StratboxError {
  return new StratboxError(
    'NOT_FOUND',
    `No funding rates of ${range.symbol} from ${source} for ${range.startDate}..${range.endDate}${hint ? `: ${hint}` : ''}`,
    {
      symbol: range.symbol,
      source,
    },
  );
}
