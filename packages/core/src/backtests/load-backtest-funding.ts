import { isStratboxError } from '../errors/stratbox-error.js';
import type { MarketData } from '../ports/market-data.js';

export interface BacktestFundingRequest {
  symbols: string[];
  /** First and last UTC day of the backtest, `YYYY-MM-DD`. */
  startDate: string;
  endDate: string;
}

export interface BacktestFunding {
  /** Funding events per symbol that has any in the range (symbols without are absent: they pay none). */
  funding: Record<string, { time: Float64Array; rate: Float64Array }>;
  /** The sources the rates came from, comma-separated in order of first use; null when no symbol had any. */
  source: string | null;
  /** Symbols for which the market data has no funding rates (no `getFundingRates`, or NOT_FOUND): they run without funding. */
  missing: string[];
}

/**
 * Loads the funding rates of a backtest's symbols over its range (warm-up candles are not
 * traded, so they need none). A MarketData without `getFundingRates`, or one that answers
 * NOT_FOUND for a symbol, leaves that symbol without funding rather than failing the run: the
 * result says which ones (`missing`), and `source` names only the sources actually used. Any
 * other error (UNAVAILABLE, ...) fails the load, as it would for candles.
 */
export async function loadBacktestFunding(marketData: MarketData, request: BacktestFundingRequest): Promise<BacktestFunding> {
  const { startDate, endDate } = request;
  const getFundingRates = marketData.getFundingRates?.bind(marketData);
  if (!getFundingRates) return { funding: {}, source: null, missing: [...request.symbols] };
  const loaded = await Promise.all(
    request.symbols.map(async (symbol) => {
      try {
        return { symbol, answer: await getFundingRates({ symbol, startDate, endDate }) };
      } catch (error) {
        if (isStratboxError(error) && error.code === 'NOT_FOUND') return { symbol, answer: null };
        throw error;
      }
    }),
  );
  const funding: BacktestFunding['funding'] = {};
  const sources: string[] = [];
  const missing: string[] = [];
  for (const { symbol, answer } of loaded) {
    if (!answer || answer.series.length === 0) {
      missing.push(symbol);
      continue;
    }
    funding[symbol] = { time: answer.series.time, rate: answer.series.rate };
    if (!sources.includes(answer.source)) sources.push(answer.source);
  }
  return { funding, source: sources.length > 0 ? sources.join(',') : null, missing };
}
