import { describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createMarketData } from './composite-market-data.js';
import { importCandlesCsv, parseCsvTime } from './csv-import.js';

const clock: Clock = { now: () => new Date('2025-01-01T00:00:00.000Z') };
const T0 = Date.parse('2024-01-01T00:00:00.000Z');
const HOUR = 3_600_000;

/** Two days of hourly candles, with a header and one time format per day. */
function twoDaysCsv(): string {
  const lines = ['time,open,high,low,close,volume'];
  for (let i = 0; i < 48; i++) {
    const t = T0 + i * HOUR;
    const time = i < 24 ? String(t) : i < 36 ? String(t / 1000) : new Date(t).toISOString();
    lines.push(`${time},${100 + i},${101 + i},${99 + i},${100.5 + i},${10 + i}`);
  }
  return lines.join('\r\n') + '\r\n';
}

async function failure(promise: Promise<unknown>): Promise<StratboxError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StratboxError);
  return error as StratboxError;
}

describe('importCandlesCsv', () => {
  it('imports a file and the composite serves exactly those candles with source csv', async () => {
    const store = createMemoryStore();
    const result = await importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: twoDaysCsv() });
    expect(result).toEqual({ imported: 48, firstTime: '2024-01-01T00:00:00.000Z', lastTime: '2024-01-02T23:00:00.000Z' });

    const { source, series } = await createMarketData({ store, clock }).getCandles({
      symbol: 'BTC/USDT:USDT',
      timeframe: '1h',
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    });
    expect(source).toBe('csv');
    expect(series.length).toBe(48);
    expect(series.time[47]).toBe(T0 + 47 * HOUR);
    expect([series.open[30], series.high[30], series.low[30], series.close[30], series.volume[30]]).toEqual([130, 131, 129, 130.5, 40]);
  });

  it('reads a streamed file whose pieces split lines anywhere', async () => {
    const text = twoDaysCsv();
    async function* pieces() {
      for (let i = 0; i < text.length; i += 7) yield text.slice(i, i + 7);
    }
    const store = createMemoryStore();
    const result = await importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: pieces() });
    expect(result.imported).toBe(48);
  });

  it('imports nothing when a row is bad, and names its line', async () => {
    const store = createMemoryStore();
    const lines = twoDaysCsv().split('\r\n');
    lines[6] = `${T0 + 5 * HOUR},105,104,106,105,1`; // high below low, on line 7
    lines[11] = `${T0 + 10 * HOUR},110,111,109,abc,1`; // line 12
    const error = await failure(importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: lines.join('\n') }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('2 invalid rows');
    expect(error.message).toContain('line 7: high 104 is below low 106');
    expect(error.details).toEqual([
      { path: 'line 7', message: 'high 104 is below low 106' },
      { path: 'line 12', message: 'close is not a number' },
    ]);
    expect(await store.candles.listSources('BTC/USDT:USDT', '1h')).toEqual([]);
  });

  it('refuses times that are not on the timeframe grid', async () => {
    const store = createMemoryStore();
    const csv = [`${T0},1,2,0.5,1.5,3`, `${T0 + 90 * 60_000},1,2,0.5,1.5,3`].join('\n');
    const error = await failure(importCandlesCsv({ store, symbol: 'ETH/USDT', timeframe: '1h', csv }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('line 2');
    expect(error.message).toContain('not aligned');
    expect(await store.candles.listSources('ETH/USDT', '1h')).toEqual([]);
  });

  it('refuses a time given twice', async () => {
    const csv = [`${T0},1,2,0.5,1.5,3`, `${T0},1,2,0.5,1.5,3`].join('\n');
    const error = await failure(importCandlesCsv({ store: createMemoryStore(), symbol: 'ETH/USDT', timeframe: '1h', csv }));
    expect(error.details).toEqual([{ path: 'line 2', message: 'time 2024-01-01T00:00:00.000Z appears twice (also line 1)' }]);
  });

  it('adds to earlier imports of the same symbol', async () => {
    const store = createMemoryStore();
    const rows = twoDaysCsv().trim().split('\r\n').slice(1);
    await importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: rows.slice(0, 30).join('\n') });
    await importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: rows.slice(30).join('\n') });
    const { series } = await createMarketData({ store, clock }).getCandles({
      symbol: 'BTC/USDT:USDT',
      timeframe: '1h',
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    });
    expect(series.length).toBe(48);
  });

  /** The candles the composite serves for 2024-01-01 (the day of every file below). */
  async function firstDay(store: ReturnType<typeof createMemoryStore>) {
    const { series } = await createMarketData({ store, clock }).getCandles({
      symbol: 'BTC/USDT:USDT',
      timeframe: '1h',
      startDate: '2024-01-01',
      endDate: '2024-01-01',
    });
    return Array.from({ length: series.length }, (_, i) => [series.time[i], series.open[i], series.high[i], series.low[i], series.close[i], series.volume[i]]);
  }

  it('places columns by the header, in any order, with quoted fields and extra columns', async () => {
    // a BOM, quoted names, a note with a comma, doubled quotes and a line break inside quotes
    const text = [
      '\uFEFF"Close","Volume","note","High","Low","Open","Open Time"',
      '100.5,10,"calm, quiet",101,99,100,2024-01-01T00:00:00Z',
      '"101.5","11","said ""hi""",102,100,101,2024-01-01T01:00:00Z',
      '',
      '102.5,12,"two\nlines",103,101,102,2024-01-01T02:00:00Z',
    ].join('\r\n');
    const store = createMemoryStore();
    const result = await importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: text });
    expect(result).toEqual({ imported: 3, firstTime: '2024-01-01T00:00:00.000Z', lastTime: '2024-01-01T02:00:00.000Z' });
    expect(await firstDay(store)).toEqual([
      [T0, 100, 101, 99, 100.5, 10],
      [T0 + HOUR, 101, 102, 100, 101.5, 11],
      [T0 + 2 * HOUR, 102, 103, 101, 102.5, 12],
    ]);
  });

  /** Binance's kline row (data.binance.vision): open time, OHLCV, close time, quote volume, trades, taker volumes, ignore. */
  const binanceRow = (openTime: number | string, i: number) =>
    `${openTime},${100 + i}.0,${101 + i}.0,${99 + i}.0,${100.5 + i},${10 + i}.5,${Number(openTime) + HOUR - 1},1005.2,42,5.1,512.6,0`;

  it("reads Binance's 12-column klines without a header, in ms or µs", async () => {
    const store = createMemoryStore();
    const lines = [binanceRow(T0, 0), binanceRow(T0 + HOUR, 1), binanceRow((T0 + 2 * HOUR) * 1000, 2)];
    expect((await importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: lines.join('\n') + '\n' })).imported).toBe(3);
    expect(await firstDay(store)).toEqual([
      [T0, 100, 101, 99, 100.5, 10.5],
      [T0 + HOUR, 101, 102, 100, 101.5, 11.5],
      [T0 + 2 * HOUR, 102, 103, 101, 102.5, 12.5],
    ]);
  });

  it("reads Binance's klines with their header", async () => {
    const header = 'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore';
    const store = createMemoryStore();
    await importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: [header, binanceRow(T0, 0), binanceRow(T0 + HOUR, 1)].join('\n') });
    expect(await firstDay(store)).toEqual([
      [T0, 100, 101, 99, 100.5, 10.5],
      [T0 + HOUR, 101, 102, 100, 101.5, 11.5],
    ]);
  });

  it('names what a header lacks, and imports nothing', async () => {
    const store = createMemoryStore();
    const error = await failure(importCandlesCsv({ store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: `time,open,high,low,price\n${T0},1,2,0.5,1.5` }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('no column for close, volume');
    expect(error.details).toEqual([{ path: 'line 1', message: expect.stringContaining('found "time", "open", "high", "low", "price"') }]);
    expect(await store.candles.listSources('BTC/USDT:USDT', '1h')).toEqual([]);
  });

  it('refuses rows of another width than the header or 6 and 12 columns, and a quote never closed', async () => {
    const store = createMemoryStore();
    const headed = await failure(
      importCandlesCsv({ store, symbol: 'ETH/USDT', timeframe: '1h', csv: `time,open,high,low,close,volume\n${T0},1,2,0.5,1.5,3,9` }),
    );
    expect(headed.details).toEqual([{ path: 'line 2', message: 'expected 6 values as in the header, found 7' }]);
    const bare = await failure(importCandlesCsv({ store, symbol: 'ETH/USDT', timeframe: '1h', csv: `${T0},1,2,0.5,1.5,3,9` }));
    expect(bare.details).toEqual([{ path: 'line 1', message: "expected 6 values (time,open,high,low,close,volume) or Binance's 12 kline columns, found 7" }]);
    const quote = await failure(importCandlesCsv({ store, symbol: 'ETH/USDT', timeframe: '1h', csv: `${T0},1,2,0.5,1.5,3\n${T0 + HOUR},"1,2,0.5,1.5,3\n` }));
    expect(quote.details).toEqual([{ path: 'line 2', message: expect.stringContaining('Quote Not Closed') }]);
    expect(await store.candles.listSources('ETH/USDT', '1h')).toEqual([]);
  });

  it('parses epoch seconds, ms, µs and ns and ISO times as UTC', () => {
    expect(parseCsvTime('1704067200000')).toBe(T0);
    expect(parseCsvTime('1704067200')).toBe(T0);
    expect(parseCsvTime('1704067200000000')).toBe(T0);
    expect(parseCsvTime('1704067200000000000')).toBe(T0);
    expect(parseCsvTime('2024-01-01T00:00:00Z')).toBe(T0);
    expect(parseCsvTime('2024-01-01 00:00:00')).toBe(T0);
    expect(parseCsvTime('2024-01-01')).toBe(T0);
    expect(parseCsvTime('2024-01-01T01:00:00+01:00')).toBe(T0);
    expect(parseCsvTime('yesterday')).toBeNaN();
  });
});
