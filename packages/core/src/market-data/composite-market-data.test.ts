import { describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { MarketData } from '../ports/market-data.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createCachedCandleSource } from './cached-market-data.js';
import { createMarketData, defaultCandleSources } from './composite-market-data.js';
import { importCandlesCsv } from './csv-import.js';

const clock: Clock = { now: () => new Date('2024-06-15T10:30:00.000Z') };

async function failure(promise: Promise<unknown>): Promise<StratboxError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StratboxError);
  return error as StratboxError;
}

/** 24 hourly candles of one day, as CSV. */
function dayCsv(day: string): string {
  const t0 = Date.parse(`${day}T00:00:00.000Z`);
  return Array.from({ length: 24 }, (_, i) => `${t0 + i * 3_600_000},10,11,9,10.5,1`).join('\n');
}

describe('createMarketData', () => {
  it('answers with synthetic candles when nothing is imported, and records the source', async () => {
    const md = createMarketData({ store: createMemoryStore(), clock });
    const { source, series } = await md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-06-01', endDate: '2024-06-02' });
    expect(source).toBe('synthetic');
    expect(series.length).toBe(48);
  });

  it('uses CSV candles only when they cover the whole range', async () => {
    const store = createMemoryStore();
    await importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: dayCsv('2024-06-01') });
    const md = createMarketData({ store, clock });
    expect((await md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-06-01', endDate: '2024-06-01' })).source).toBe('csv');
    expect((await md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-06-01', endDate: '2024-06-02' })).source).toBe('synthetic');
  });

  it('uses candles downloaded from an exchange (ccxt:<id> in the cache) when they cover the whole range, after CSV imports', async () => {
    const store = createMemoryStore();
    // as downloadCandles leaves them: the days under ccxt:binanceusdm
    await importCandlesCsv({
      store,
      source: 'ccxt:binanceusdm',
      symbol: 'BTC/USDT:USDT',
      timeframe: '1h',
      csv: dayCsv('2024-06-01') + '\n' + dayCsv('2024-06-02'),
    });
    const md = createMarketData({ store, clock });
    const request = { symbol: 'BTC/USDT:USDT', timeframe: '1h' as const, startDate: '2024-06-01', endDate: '2024-06-02' };
    expect((await md.getCandles(request)).source).toBe('ccxt:binanceusdm');
    expect((await md.getCandlePage!({ ...request, limit: 10 })).source).toBe('ccxt:binanceusdm');
    expect((await md.getCandles({ ...request, endDate: '2024-06-03' })).source).toBe('synthetic');
    await importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: dayCsv('2024-06-01') });
    expect((await md.getCandles({ ...request, endDate: '2024-06-01' })).source).toBe('csv');
  });

  it('is NOT_FOUND, naming symbol, timeframe and first missing day, when a non-synthetic source lacks days', async () => {
    const store = createMemoryStore();
    await importCandlesCsv({ store, symbol: 'ETH/USDT', timeframe: '1h', csv: dayCsv('2024-06-01') + '\n' + dayCsv('2024-06-03') });
    // Without synthetic candles the CSV import is the only source; 06-02 is covered (a known
    // empty day between imported rows) but 06-04 is not.
    const md = createMarketData({ store, clock, sources: [createCachedCandleSource(store)] });
    const error = await failure(md.getCandles({ symbol: 'ETH/USDT', timeframe: '1h', startDate: '2024-06-01', endDate: '2024-06-05' }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('No candles of ETH/USDT 1h from csv for 2024-06-04 (requested 2024-06-01..2024-06-05)');
  });

  it('never answers with an empty series', async () => {
    const empty: MarketData = {
      async getCandles(request) {
        return {
          source: 'empty',
          series: {
            symbol: request.symbol,
            timeframe: request.timeframe,
            length: 0,
            time: new Float64Array(0),
            open: new Float64Array(0),
            high: new Float64Array(0),
            low: new Float64Array(0),
            close: new Float64Array(0),
            volume: new Float64Array(0),
          },
        };
      },
    };
    const md = createMarketData({ store: createMemoryStore(), clock, sources: [empty] });
    const error = await failure(md.getCandles({ symbol: 'BTC/USDT', timeframe: '1d', startDate: '2024-01-01', endDate: '2024-01-31' }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('BTC/USDT 1d');
  });

  it('refuses a range in the future and a start after the end', async () => {
    const md = createMarketData({ store: createMemoryStore(), clock });
    const future = await failure(md.getCandles({ symbol: 'BTC/USDT', timeframe: '1h', startDate: '2024-06-16', endDate: '2024-06-20' }));
    expect(future.code).toBe('NOT_FOUND');
    expect(future.message).toContain('in the future');
    const reversed = await failure(md.getCandles({ symbol: 'BTC/USDT', timeframe: '1h', startDate: '2024-06-10', endDate: '2024-06-01' }));
    expect(reversed.code).toBe('NOT_FOUND');
    expect(reversed.message).toContain('after endDate');
  });

  it('returns only closed candles of today', async () => {
    const md = createMarketData({ store: createMemoryStore(), clock });
    const { series } = await md.getCandles({ symbol: 'BTC/USDT', timeframe: '1h', startDate: '2024-06-15', endDate: '2024-06-30' });
    // At 10:30 the candles of 00:00..09:00 have closed.
    expect(series.length).toBe(10);
    expect(series.time[9]).toBe(Date.parse('2024-06-15T09:00:00.000Z'));
  });

  it('limits a request to 2,000,000 candles', async () => {
    const md = createMarketData({ store: createMemoryStore(), clock });
    const error = await failure(md.getCandles({ symbol: 'BTC/USDT', timeframe: '1m', startDate: '2020-01-01', endDate: '2024-01-01' }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('2000000');
  });

  it('lets a configured exchange answer before synthetic candles, including its errors', async () => {
    const down: MarketData = {
      async getCandles() {
        throw new StratboxError('UNAVAILABLE', 'binance is unavailable');
      },
    };
    const store = createMemoryStore();
    const md = createMarketData({ store, clock, sources: defaultCandleSources(store, down) });
    expect((await failure(md.getCandles({ symbol: 'BTC/USDT', timeframe: '1h', startDate: '2024-06-01', endDate: '2024-06-01' }))).code).toBe('UNAVAILABLE');
  });
});
