/** Candle timeframes and their length in milliseconds. */
export const TIMEFRAME_MS = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
} as const;

export type TimeframeName = keyof typeof TIMEFRAME_MS;

/**
 * Candles of one symbol and timeframe in columns, oldest first: `time[i]` is the OPEN time of
 * candle i in epoch milliseconds, and the candle is closed at `time[i] + TIMEFRAME_MS[timeframe]`.
 * Columns keep a million candles in 48 MB and cross into the sandbox without per-candle objects.
 */
export interface CandleSeries {
  symbol: string;
  timeframe: TimeframeName;
  length: number;
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

export interface CandleRequest {
  symbol: string;
  timeframe: TimeframeName;
  /** First UTC day, `YYYY-MM-DD`, inclusive. */
  startDate: string;
  /** Last UTC day, `YYYY-MM-DD`, inclusive. */
  endDate: string;
}

/**
 * Where candles come from. Guarantees: the series is in strictly increasing time order with no
 * duplicate times, every candle opens within [startDate 00:00, endDate 24:00) UTC, and it is the
 * same series for the same request every time (so a backtest can be repeated and a chart shows
 * what the backtest used). Missing data is a `StratboxError` NOT_FOUND naming what is missing,
 * never an empty series; a provider that cannot be reached is UNAVAILABLE.
 */
export interface MarketData {
  getCandles(request: CandleRequest): Promise<{ source: string; series: CandleSeries }>;
  /**
   * Optional: one page of `getCandles(request)`, at a cost in proportion to `limit`, not to the
   * range (the candles route uses it; without it, callers slice `getCandles`). Guarantees: the
   * candles are the very ones `getCandles(request)` holds from `fromMs` on, the same errors for
   * a bad or empty range, and `nextMs` is the open time of the candle after the page, or null at
   * the end. A source that checks data day by day (an exchange) checks only the days the page
   * covers, so a page may be served where the whole range would be NOT_FOUND for a later day.
   */
  getCandlePage?(request: CandlePageRequest): Promise<CandlePage>;
  /**
   * Optional: the funding rates of a perpetual (LINEAR) symbol over whole UTC days, for the
   * funding payments of backtests. Guarantees, as for `getCandles`: the events are in strictly
   * increasing time order with no duplicate times, every event falls within [startDate 00:00,
   * endDate 24:00) UTC and has already happened, and it is the same series for the same request
   * every time. A range in which the source has no funding event at all (an unknown symbol, a
   * spot market, days before the listing) is a `StratboxError` NOT_FOUND, never an empty
   * series; days without events inside a range that has some are simply gaps. A malformed
   * request is VALIDATION_FAILED; a provider that cannot be reached is UNAVAILABLE. Without this
   * method, backtests run without funding.
   */
  getFundingRates?(request: FundingRequest): Promise<{ source: string; series: FundingSeries }>;
}

export interface FundingRequest {
  symbol: string;
  /** First UTC day, `YYYY-MM-DD`, inclusive. */
  startDate: string;
  /** Last UTC day, `YYYY-MM-DD`, inclusive. */
  endDate: string;
}

/**
 * Funding events of one symbol in columns, oldest first: at `time[i]` (the funding timestamp,
 * epoch ms, strictly ascending) an open position of notional N pays `N x rate[i]` (a long pays a
 * positive rate, a short receives it; a negative rate goes the other way). Rates are fractions
 * per event (0.0001 is 0.01 %).
 */
export interface FundingSeries {
  symbol: string;
  length: number;
  time: Float64Array;
  rate: Float64Array;
}

export interface CandlePageRequest extends CandleRequest {
  /** The page holds candles opening at or after this time (epoch ms). Default: the range's start. */
  fromMs?: number | undefined;
  /** The most candles of the page, at least 1. */
  limit: number;
}

export interface CandlePage {
  source: string;
  /** At most `limit` candles, oldest first. */
  series: CandleSeries;
  /** Open time of the candle that follows the page in the range, or null if the page reaches its end. */
  nextMs: number | null;
}
