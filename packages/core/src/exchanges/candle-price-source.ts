import { isStratboxError } from '../errors/stratbox-error.js';
import { TIMEFRAME_MS, type MarketData, type TimeframeName } from '../ports/market-data.js';
import type { Clock } from '../ports/clock.js';
import type { PaperPriceSource } from './paper-gateway.js';

export interface CandlePriceSourceOptions {
  /** Where candles come from: synthetic (offline), ccxt, CSV... */
  marketData: MarketData;
  clock: Clock;
  /** Candles whose close is the price. Default `1m`: the price moves once a minute. */
  timeframe?: TimeframeName;
}

/**
 * A price source for the paper exchange from candles: the price of a symbol is the close of its
 * last closed candle at the clock's time. With synthetic market data a server paper-trades
 * offline with no set-up. One candle request per symbol and candle period (cached); a symbol
 * the market data does not have (NOT_FOUND) has no price (null).
 */
export function createCandlePriceSource(options: CandlePriceSourceOptions): PaperPriceSource {
  const timeframe = options.timeframe ?? '1m';
  const step = TIMEFRAME_MS[timeframe];
  const cache = new Map<string, { openTime: number; price: Promise<number | null> }>();

  async function load(symbol: string, openTime: number): Promise<number | null> {
    const day = new Date(openTime).toISOString().slice(0, 10);
    try {
      const { series } = await options.marketData.getCandles({ symbol, timeframe, startDate: day, endDate: day });
      for (let i = series.length - 1; i >= 0; i--) if (series.time[i]! <= openTime) return series.close[i]!;
      return null;
    } catch (error) {
      if (isStratboxError(error) && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }

  return (symbol) => {
    // Open time of the last candle that has closed.
    const openTime = Math.floor(options.clock.now().getTime() / step) * step - step;
    const cached = cache.get(symbol);
    if (cached?.openTime === openTime) return cached.price;
    const price = load(symbol, openTime);
    cache.set(symbol, { openTime, price });
    price.catch(() => {
      if (cache.get(symbol)?.price === price) cache.delete(symbol);
    });
    return price;
  };
}
