import { DAY_MS } from '../market-data/candle-range.js';
import { mergeSeries, sliceSeries } from '../market-data/candle-series.js';
import { TIMEFRAME_MS, type CandleSeries, type MarketData, type TimeframeName } from '../ports/market-data.js';

export interface BacktestCandleRequest {
  symbols: string[];
  timeframe: TimeframeName;
  /** First and last UTC day of the backtest, `YYYY-MM-DD`. */
  startDate: string;
  endDate: string;
  /** The strategy's `meta.warmup` (0 or absent: no warm-up). */
  warmup: number;
}

export interface BacktestCandles {
  /** Per symbol: exactly `warmup - 1` candles before the start, then the backtest's range. */
  series: CandleSeries[];
  /** The market-data sources the candles came from, comma-separated. */
  source: string;
  /** Open time of the first traded candle (the start date, 00:00 UTC). */
  startTime: number;
}

/** Extra days fetched before the start beyond the exact need, so a few missing candles still leave enough. */
function marginDays(days: number): number {
  return Math.ceil(days * 0.1) + 1;
}

function warmupMissing(message: string): Error {
  return Object.assign(new Error(`${message}. Start the backtest later, or import earlier candles.`), { code: 'WARMUP_DATA_MISSING' });
}

/**
 * Loads the candles of a backtest as `docs/strategy-api.md` says: `onCandle` first runs on a
 * symbol's `warmup`-th candle, candles before the start date counting, so exactly `warmup - 1`
 * candles before the start are loaded (the first `onCandle` is the start date's first candle).
 * They must come from the same source as the backtest's range. When they cannot be had (the
 * warm-up days fail to load, come from another source, or hold too few candles), the run fails
 * with `WARMUP_DATA_MISSING` and a message naming what is missing, rather than starting with
 * cold indicators and different results.
 */
export async function loadBacktestCandles(marketData: MarketData, request: BacktestCandleRequest): Promise<BacktestCandles> {
  const { timeframe, startDate, endDate } = request;
  const startTime = Date.parse(`${startDate}T00:00:00.000Z`);
  const need = Math.max(0, Math.floor(request.warmup) - 1);
  const days = Math.ceil((need * TIMEFRAME_MS[timeframe]) / DAY_MS);
  const warmStart = new Date(startTime - (days + marginDays(days)) * DAY_MS).toISOString().slice(0, 10);
  const warmEnd = new Date(startTime - DAY_MS).toISOString().slice(0, 10);

  const loaded = await Promise.all(
    request.symbols.map(async (symbol) => {
      const range = await marketData.getCandles({ symbol, timeframe, startDate, endDate });
      if (need === 0) return range;
      const missing = (why: string) =>
        warmupMissing(`The run needs ${need} ${timeframe} candles of ${symbol} before ${startDate} to warm up the strategy; ${why}`);
      const warm = await marketData.getCandles({ symbol, timeframe, startDate: warmStart, endDate: warmEnd }).catch((error: unknown) => {
        throw missing(`they could not be loaded (${error instanceof Error ? error.message : String(error)})`);
      });
      if (warm.source !== range.source) throw missing(`the backtest's candles come from ${range.source}, and the candles before them only from ${warm.source}`);
      const have = warm.series.length;
      if (have < need) throw missing(`only ${have} are available`);
      // the warm-up days end before the start: merged, the two are one series in time order
      return { source: range.source, series: mergeSeries(sliceSeries(warm.series, have - need, have), range.series) };
    }),
  );
  return { series: loaded.map((l) => l.series), source: [...new Set(loaded.map((l) => l.source))].join(','), startTime };
}
