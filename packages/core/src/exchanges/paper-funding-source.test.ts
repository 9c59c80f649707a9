import { describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import { createMarketData } from '../market-data/composite-market-data.js';
import { generateSyntheticFunding } from '../market-data/synthetic-funding.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createMarketDataFundingSource, type FundingRatesReader } from './paper-funding-source.js';

const BTC = 'BTC/USDT:USDT';
const DAY = 86_400_000;
const D0 = Date.parse('2026-02-01T00:00:00.000Z');

/** Funding every 8 hours at rate 0.0001 x (event index), counting the requests it answers. */
function fakeMarketData() {
  const requests: string[] = [];
  const marketData: FundingRatesReader = {
    async getFundingRates({ symbol, startDate, endDate }) {
      requests.push(`${startDate}..${endDate}`);
      if (symbol !== BTC) throw new StratboxError('NOT_FOUND', `No funding rates of ${symbol}`);
      const start = Date.parse(`${startDate}T00:00:00.000Z`);
      const end = Date.parse(`${endDate}T00:00:00.000Z`) + DAY;
      const time: number[] = [];
      for (let t = start; t < end; t += DAY / 3) time.push(t);
      return { series: { length: time.length, time, rate: time.map((t) => 0.0001 * ((t - D0) / (DAY / 3))) } };
    },
  };
  return { marketData, requests };
}

describe('createMarketDataFundingSource', () => {
  it('answers the events after `from` up to `to`, and asks again only about days that are not over', async () => {
    const { marketData, requests } = fakeMarketData();
    const now = { ms: D0 + 3 * DAY + 1_000 };
    const source = createMarketDataFundingSource({ marketData, clock: { now: () => new Date(now.ms) } });
    const events = await source(BTC, D0, D0 + 3 * DAY + 1_000);
    // Events at 8 h, 16 h, then three a day; the one at D0 itself is not after `from`.
    expect(events.map((e) => (e.time - D0) / (DAY / 3))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(events[2]!.rate).toBeCloseTo(0.0003, 12);
    // The three days that are over in one request, today in another.
    expect(requests).toEqual(['2026-02-01..2026-02-03', '2026-02-04..2026-02-04']);

    now.ms += 60_000;
    expect(await source(BTC, D0 + DAY, now.ms)).toHaveLength(6);
    expect(requests.slice(2)).toEqual(['2026-02-04..2026-02-04']);
  });

  it('answers no events for a symbol the market data has no funding for, or market data without funding rates', async () => {
    const { marketData } = fakeMarketData();
    const clock = { now: () => new Date(D0 + DAY) };
    expect(await createMarketDataFundingSource({ marketData, clock })('ETH/USDT:USDT', D0, D0 + DAY)).toEqual([]);
    expect(await createMarketDataFundingSource({ marketData: {}, clock })(BTC, D0, D0 + DAY)).toEqual([]);
  });

  it('throws what else goes wrong, so the paper exchange pays those events later', async () => {
    const marketData: FundingRatesReader = {
      getFundingRates: () => Promise.reject(new StratboxError('UNAVAILABLE', 'the exchange is down')),
    };
    const source = createMarketDataFundingSource({ marketData, clock: { now: () => new Date(D0 + DAY) } });
    await expect(source(BTC, D0, D0 + DAY)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('reads the synthetic funding a backtest over the default market data pays', async () => {
    const clock = { now: () => new Date(D0 + 2 * DAY + 5 * 3_600_000) };
    const source = createMarketDataFundingSource({ marketData: createMarketData({ store: createMemoryStore(), clock }), clock });
    const events = await source(BTC, D0, clock.now().getTime());
    const expected = generateSyntheticFunding(BTC, D0 + 1, clock.now().getTime() + 1);
    expect(events).toEqual(Array.from({ length: expected.length }, (_, i) => ({ time: expected.time[i], rate: expected.rate[i] })));
    expect(events.map((e) => new Date(e.time).toISOString().slice(11, 16))).toEqual(['08:00', '16:00', '00:00', '08:00', '16:00', '00:00']);
  });
});
