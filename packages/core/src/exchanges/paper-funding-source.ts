import { isStratboxError } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { PaperFundingEvent, PaperFundingSource } from './paper-funding.js';

/**
 * The part of the MarketData port a paper exchange's funding comes from: `getFundingRates`
 * (optional on the port) over whole UTC days.
 */
export interface FundingRatesReader {
  getFundingRates?(request: { symbol: string; startDate: string; endDate: string }): Promise<{
    series: { length: number; time: ArrayLike<number>; rate: ArrayLike<number> };
  }>;
}

export interface MarketDataFundingSourceOptions {
  /** Where funding rates come from (synthetic by default, CSV imports, an exchange...). Without `getFundingRates`: no funding. */
  marketData: FundingRatesReader;
  /** Decides which UTC days are over: their events are kept in memory instead of being asked again. */
  clock: Clock;
  /** Days (symbol and day) kept in memory. Default 2,000. */
  maxCachedDays?: number;
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A paper exchange's funding source reading the MarketData port, so paper positions pay the
 * funding a backtest over the same market data pays. A symbol the market data has no funding for
 * (NOT_FOUND) pays none; any other failure is thrown (the paper exchange pays those events at a
 * later call). The events of UTC days that are over are kept in memory: an open position asks
 * again only about the current day.
 */
export function createMarketDataFundingSource(options: MarketDataFundingSourceOptions): PaperFundingSource {
  const { marketData, clock } = options;
  const maxCachedDays = options.maxCachedDays ?? 2_000;
  /** Events of `${symbol} ${day}` for days that were over when read. */
  const cache = new Map<string, PaperFundingEvent[]>();

  async function read(symbol: string, startDay: number, endDay: number): Promise<PaperFundingEvent[]> {
    const request = { symbol, startDate: dayOf(startDay), endDate: dayOf(endDay) };
    try {
      const { series } = await marketData.getFundingRates!(request);
      const events: PaperFundingEvent[] = [];
      for (let i = 0; i < series.length; i++) events.push({ time: series.time[i]!, rate: series.rate[i]! });
      return events;
    } catch (error) {
      if (isStratboxError(error) && error.code === 'NOT_FOUND') return [];
      throw error;
    }
  }

  function remember(key: string, events: PaperFundingEvent[]) {
    cache.set(key, events);
    while (cache.size > maxCachedDays) cache.delete(cache.keys().next().value!);
  }

  return async (symbol, fromMs, toMs) => {
    if (!marketData.getFundingRates || !(toMs > fromMs)) return [];
    const key = (day: number) => `${symbol} ${day}`;
    const first = Math.floor((fromMs + 1) / DAY_MS) * DAY_MS;
    const last = Math.floor(toMs / DAY_MS) * DAY_MS;
    // Days over before now are final: kept once read; the missing ones are read in one request.
    const today = Math.floor(clock.now().getTime() / DAY_MS) * DAY_MS;
    const lastOver = Math.min(last, today - DAY_MS);
    let missing = -1;
    for (let day = first; day <= lastOver; day += DAY_MS) {
      if (!cache.has(key(day))) {
        missing = day;
        break;
      }
    }
    const events: PaperFundingEvent[] = [];
    for (let day = first; day <= (missing < 0 ? lastOver : missing - DAY_MS); day += DAY_MS) events.push(...cache.get(key(day))!);
    if (missing >= 0) {
      const fresh = await read(symbol, missing, lastOver);
      events.push(...fresh);
      for (let day = missing; day <= lastOver; day += DAY_MS) {
        const end = day + DAY_MS;
        remember(
          key(day),
          fresh.filter((e) => e.time >= day && e.time < end),
        );
      }
    }
    for (let day = Math.max(first, today); day <= last; day += DAY_MS) events.push(...(await read(symbol, day, day)));
    return events.filter((e) => e.time > fromMs && e.time <= toMs);
  };
}
