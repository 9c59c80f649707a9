import { describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import { SYNTHETIC_FUNDING_BOUND, generateSyntheticFunding } from './synthetic-funding.js';
import { createSyntheticMarketData } from './synthetic-market-data.js';

const HOUR = 3_600_000;
const md = createSyntheticMarketData();
const request = { symbol: 'BTC/USDT:USDT', startDate: '2024-01-01', endDate: '2024-12-31' };

describe('synthetic funding rates', () => {
  it('has an event every 8 hours, at 00:00, 08:00 and 16:00 UTC, over exactly the requested days', async () => {
    const { source, series } = await md.getFundingRates!(request);
    expect(source).toBe('synthetic');
    expect(series.symbol).toBe('BTC/USDT:USDT');
    expect(series.length).toBe(366 * 3);
    expect(series.time.length).toBe(series.length);
    expect(series.rate.length).toBe(series.length);
    const start = Date.parse('2024-01-01T00:00:00.000Z');
    for (let i = 0; i < series.length; i++) expect(series.time[i]).toBe(start + i * 8 * HOUR);
    expect(new Date(series.time[series.length - 1]!).toISOString()).toBe('2024-12-31T16:00:00.000Z');
    expect(new Set(Array.from(series.time, (t) => new Date(t).getUTCHours()))).toEqual(new Set([0, 8, 16]));
  });

  it('is the same for the same request, and an event does not depend on the range it is asked in', async () => {
    const a = await md.getFundingRates!(request);
    const b = await createSyntheticMarketData().getFundingRates!(request);
    expect(Array.from(b.series.rate)).toEqual(Array.from(a.series.rate));
    const june = await md.getFundingRates!({ symbol: 'BTC/USDT:USDT', startDate: '2024-06-10', endDate: '2024-06-12' });
    const offset = a.series.time.indexOf(Date.parse('2024-06-10T00:00:00.000Z'));
    expect(Array.from(june.series.time)).toEqual(Array.from(a.series.time.subarray(offset, offset + 9)));
    expect(Array.from(june.series.rate)).toEqual(Array.from(a.series.rate.subarray(offset, offset + 9)));
    // a window that starts between events begins at the next one
    const mid = generateSyntheticFunding('BTC/USDT:USDT', Date.parse('2024-06-10T05:00:00.000Z'), Date.parse('2024-06-10T17:00:00.000Z'));
    expect(Array.from(mid.time)).toEqual([Date.parse('2024-06-10T08:00:00.000Z'), Date.parse('2024-06-10T16:00:00.000Z')]);
    expect(Array.from(mid.rate)).toEqual(Array.from(a.series.rate.subarray(offset + 1, offset + 3)));
  });

  it('looks like funding: around +0.01 % per 8 h, varying, sometimes negative, never beyond 0.3 %', async () => {
    const { series } = await md.getFundingRates!({ symbol: 'BTC/USDT:USDT', startDate: '2020-01-01', endDate: '2024-12-31' });
    const rates = Array.from(series.rate);
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    expect(mean).toBeGreaterThan(0.00005);
    expect(mean).toBeLessThan(0.00015);
    expect(rates.every((r) => Number.isFinite(r) && Math.abs(r) <= SYNTHETIC_FUNDING_BOUND)).toBe(true);
    const negative = rates.filter((r) => r < 0).length / rates.length;
    expect(negative).toBeGreaterThan(0.05);
    expect(negative).toBeLessThan(0.4);
    expect(new Set(rates).size).toBeGreaterThan(rates.length * 0.99);
    // spikes now and then, well above the calm level
    expect(rates.filter((r) => Math.abs(r) > 0.0008).length).toBeGreaterThan(10);
  });

  it('differs from symbol to symbol', async () => {
    const btc = await md.getFundingRates!({ symbol: 'BTC/USDT:USDT', startDate: '2024-03-01', endDate: '2024-03-07' });
    const eth = await md.getFundingRates!({ symbol: 'ETH/USDT:USDT', startDate: '2024-03-01', endDate: '2024-03-07' });
    expect(Array.from(eth.series.time)).toEqual(Array.from(btc.series.time));
    expect(Array.from(eth.series.rate)).not.toEqual(Array.from(btc.series.rate));
  });

  it('refuses a malformed request as candles do', async () => {
    const error = await md.getFundingRates!({ symbol: 'BTC/USDT:USDT', startDate: '2024-02-30', endDate: '2024-03-01' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StratboxError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(md.getFundingRates!({ symbol: '', startDate: '2024-03-01', endDate: '2024-03-01' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(md.getFundingRates!({ symbol: 'X', startDate: '2024-03-02', endDate: '2024-03-01' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
