import { describe, expect, it } from 'vitest';
import type { Clock } from '../ports/clock.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createCachedFundingSource } from './cached-funding.js';
import { createMarketData } from './composite-market-data.js';
import { importFundingCsv } from './funding-csv-import.js';

const BTC = 'BTC/USDT:USDT';
const at = (iso: string) => Date.parse(iso);
const clock: Clock = { now: () => new Date('2025-01-01T00:00:00.000Z') };

describe('importFundingCsv', () => {
  it('reads headerless time,rate rows in any order and serves them back exactly', async () => {
    const store = createMemoryStore();
    const csv = ['1704096000000,-0.00012', '1704067200000,0.0001', '2024-01-01T16:00:00Z,0.00025', '1704153600,3e-5'].join('\r\n');
    const result = await importFundingCsv({ store, symbol: BTC, csv });
    expect(result).toEqual({ imported: 4, firstTime: '2024-01-01T00:00:00.000Z', lastTime: '2024-01-02T00:00:00.000Z' });
    const { source, series } = await createCachedFundingSource(store).getFundingRates({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-02' });
    expect(source).toBe('csv');
    expect(Array.from(series.time)).toEqual([at('2024-01-01T00:00:00Z'), at('2024-01-01T08:00:00Z'), at('2024-01-01T16:00:00Z'), at('2024-01-02T00:00:00Z')]);
    expect(Array.from(series.rate)).toEqual([0.0001, -0.00012, 0.00025, 3e-5]);
  });

  it("reads Binance's monthly fundingRate files as they are (calc_time, funding_interval_hours, last_funding_rate)", async () => {
    const store = createMemoryStore();
    const rows = ['calc_time,funding_interval_hours,last_funding_rate'];
    for (let i = 0; i < 6; i++) rows.push(`${at('2024-03-01T00:00:00Z') + i * 8 * 3_600_000 + 2},8,${(0.0001 * (i - 1)).toFixed(8)}`);
    expect(await importFundingCsv({ store, symbol: BTC, csv: rows.join('\n') })).toMatchObject({ imported: 6, firstTime: '2024-03-01T00:00:00.002Z' });
    const { series } = await createMarketData({ store, clock }).getFundingRates!({ symbol: BTC, startDate: '2024-03-01', endDate: '2024-03-02' });
    expect(series.length).toBe(6);
    expect(series.rate[0]).toBe(-0.0001);
    expect(series.rate[5]).toBe(0.0004);
  });

  it('places columns by a header in any order, with quoted fields and other columns ignored', async () => {
    const store = createMemoryStore();
    const csv = 'symbol,"Funding Rate",note,fundingTime\nBTCUSDT,0.0001,"a, b",2024-01-01 00:00:00\nBTCUSDT,"0.0002",x,2024-01-01 08:00:00\n';
    expect(await importFundingCsv({ store, symbol: BTC, csv })).toMatchObject({ imported: 2 });
    const { series } = await createCachedFundingSource(store).getFundingRates({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-01' });
    expect(Array.from(series.rate)).toEqual([0.0001, 0.0002]);
  });

  it('records the days between the first and last row as covered, and merges a later import', async () => {
    const store = createMemoryStore();
    await importFundingCsv({ store, symbol: BTC, csv: `${at('2024-01-01T00:00:00Z')},0.0001\n${at('2024-01-04T08:00:00Z')},0.0002` });
    expect(await store.fundingRates.countChunks('csv', BTC, '2024-01-01', '2024-01-31')).toEqual({ days: 4, rates: 2 });
    await importFundingCsv({ store, symbol: BTC, csv: `${at('2024-01-02T16:00:00Z')},0.0003\n${at('2024-01-04T08:00:00Z')},-0.0002` });
    const { series } = await createCachedFundingSource(store).getFundingRates({ symbol: BTC, startDate: '2024-01-01', endDate: '2024-01-04' });
    expect(Array.from(series.rate)).toEqual([0.0001, 0.0003, -0.0002]);
  });

  it('imports nothing when a row is wrong, and names the lines', async () => {
    const store = createMemoryStore();
    const csv = [
      'time,rate',
      `${at('2024-01-01T00:00:00Z')},0.0001`,
      'yesterday,0.0001',
      `${at('2024-01-01T08:00:00Z')},abc`,
      `${at('2024-01-01T16:00:00Z')},1.5`,
      `${at('2024-01-01T00:00:00Z')},0.0002`,
      '1,2,3',
    ].join('\n');
    const error = await importFundingCsv({ store, symbol: BTC, csv }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('5 invalid rows in the CSV, nothing imported; first: line 3') });
    expect((error as { details: unknown }).details).toEqual([
      { path: 'line 3', message: 'time is not epoch milliseconds, epoch seconds or an ISO 8601 date' },
      { path: 'line 4', message: 'rate is not a number' },
      { path: 'line 5', message: 'rate 1.5 is not a fraction from -1 to 1 (0.0001 is 0.01 %)' },
      { path: 'line 6', message: 'time 2024-01-01T00:00:00.000Z appears twice (also line 2)' },
      { path: 'line 7', message: 'expected 2 values as in the header, found 3' },
    ]);
    expect(await store.fundingRates.listSources(BTC)).toEqual([]);
    await expect(importFundingCsv({ store, symbol: BTC, csv: 'when,what\n1,2' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining("The CSV's header is not usable: the header has no column for time"),
    });
    await expect(importFundingCsv({ store, symbol: BTC, csv: '\n' })).rejects.toMatchObject({ message: 'The CSV holds no funding rates' });
  });
});
