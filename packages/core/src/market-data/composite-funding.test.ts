import { describe, expect, it } from 'vitest';
import type { Clock } from '../ports/clock.js';
import type { MarketData } from '../ports/market-data.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createMarketData } from './composite-market-data.js';
import { importFundingCsv } from './funding-csv-import.js';
import { createSyntheticMarketData } from './synthetic-market-data.js';

const clock: Clock = { now: () => new Date('2024-06-15T10:30:00.000Z') };
const BTC = 'BTC/USDT:USDT';
const at = (iso: string) => Date.parse(iso);

/** Funding of the days `from`..`to` every 8 h as CSV `time,rate`, the rate telling the day and hour apart. */
function fundingCsv(from: string, to: string): string {
  const rows: string[] = [];
  for (let t = at(`${from}T00:00:00Z`); t < at(`${to}T00:00:00Z`) + 86_400_000; t += 8 * 3_600_000) rows.push(`${t},${((t / 3_600_000) % 1000) / 1e7}`);
  return rows.join('\n');
}

describe('createMarketData: funding rates', () => {
  it('answers with synthetic funding when nothing is imported, only for events that have happened', async () => {
    const md = createMarketData({ store: createMemoryStore(), clock });
    const past = await md.getFundingRates!({ symbol: BTC, startDate: '2024-06-01', endDate: '2024-06-02' });
    expect(past.source).toBe('synthetic');
    expect(past.series.length).toBe(6);
    // today: the 00:00 and 08:00 events have happened at 10:30, the 16:00 one has not
    const today = await md.getFundingRates!({ symbol: BTC, startDate: '2024-06-15', endDate: '2024-06-20' });
    expect(Array.from(today.series.time)).toEqual([at('2024-06-15T00:00:00Z'), at('2024-06-15T08:00:00Z')]);
    const synthetic = await createSyntheticMarketData().getFundingRates!({ symbol: BTC, startDate: '2024-06-15', endDate: '2024-06-15' });
    expect(Array.from(today.series.rate)).toEqual(Array.from(synthetic.series.rate.subarray(0, 2)));
    await expect(md.getFundingRates!({ symbol: BTC, startDate: '2024-06-16', endDate: '2024-06-17' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('uses funding imported from CSV when it covers the whole range, else the next source', async () => {
    const store = createMemoryStore();
    await importFundingCsv({ store, symbol: BTC, csv: fundingCsv('2024-06-01', '2024-06-03') });
    const md = createMarketData({ store, clock });
    const csv = await md.getFundingRates!({ symbol: BTC, startDate: '2024-06-02', endDate: '2024-06-03' });
    expect(csv.source).toBe('csv');
    expect(Array.from(csv.series.time)).toEqual([0, 8, 16, 24, 32, 40].map((h) => at('2024-06-02T00:00:00Z') + h * 3_600_000));
    expect(csv.series.rate[0]).toBe(((at('2024-06-02T00:00:00Z') / 3_600_000) % 1000) / 1e7);
    expect((await md.getFundingRates!({ symbol: BTC, startDate: '2024-06-02', endDate: '2024-06-04' })).source).toBe('synthetic');
    expect((await md.getFundingRates!({ symbol: 'ETH/USDT:USDT', startDate: '2024-06-02', endDate: '2024-06-03' })).source).toBe('synthetic');
  });

  it('uses funding downloaded from an exchange (ccxt:<id> in the cache) after CSV imports', async () => {
    const store = createMemoryStore();
    await importFundingCsv({ store, source: 'ccxt:binanceusdm', symbol: BTC, csv: fundingCsv('2024-05-01', '2024-05-31') });
    const md = createMarketData({ store, clock });
    expect((await md.getFundingRates!({ symbol: BTC, startDate: '2024-05-10', endDate: '2024-05-12' })).source).toBe('ccxt:binanceusdm');
    await importFundingCsv({ store, symbol: BTC, csv: fundingCsv('2024-05-10', '2024-05-11') });
    expect((await md.getFundingRates!({ symbol: BTC, startDate: '2024-05-10', endDate: '2024-05-11' })).source).toBe('csv');
    expect((await md.getFundingRates!({ symbol: BTC, startDate: '2024-05-10', endDate: '2024-05-12' })).source).toBe('ccxt:binanceusdm');
  });

  it('asks the candle sources that have funding, in their order: an exchange answers for good, synthetic is not used', async () => {
    const store = createMemoryStore();
    const exchange: MarketData = {
      getCandles: () => Promise.reject(new Error('not used')),
      getFundingRates: async ({ symbol }) => ({
        source: 'ccxt:fake',
        series: { symbol, length: 1, time: Float64Array.of(at('2024-06-01T08:00:00Z')), rate: Float64Array.of(0.0003) },
      }),
    };
    const md = createMarketData({ store, clock, sources: [exchange, createSyntheticMarketData()] });
    const answer = await md.getFundingRates!({ symbol: BTC, startDate: '2024-06-01', endDate: '2024-06-01' });
    expect(answer).toEqual({ source: 'ccxt:fake', series: expect.objectContaining({ length: 1 }) });
    expect(Array.from(answer.series.rate)).toEqual([0.0003]);
  });

  it('answers NOT_FOUND when no source has funding rates', async () => {
    const candlesOnly: MarketData = { getCandles: (request) => createSyntheticMarketData().getCandles(request) };
    const md = createMarketData({ store: createMemoryStore(), clock, sources: [candlesOnly] });
    const error = await md.getFundingRates!({ symbol: BTC, startDate: '2024-06-01', endDate: '2024-06-01' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(`No funding rates of ${BTC}`) });
  });
});
