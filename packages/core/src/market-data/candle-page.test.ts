import { describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { CandleRequest, CandleSeries, MarketData } from '../ports/market-data.js';
import type { Store } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createCachedCandleSource, createStoreCandleCache } from './cached-market-data.js';
import { candlePage } from './candle-page.js';
import { createMarketData, defaultCandleSources } from './composite-market-data.js';
import { createSyntheticMarketData, generateSyntheticSeries } from './synthetic-market-data.js';

const clock: Clock = { now: () => new Date('2025-10-20T10:30:00.000Z') };
/** 1,992,960 one-minute candles: the range of the issue. */
const FOUR_YEARS = { symbol: 'BTC/USDT:USDT', timeframe: '1m', startDate: '2022-01-01', endDate: '2025-10-15' } as const satisfies CandleRequest;
const ONE_DAY = { ...FOUR_YEARS, startDate: '2025-10-15' } as const satisfies CandleRequest;

type Page = Awaited<ReturnType<typeof candlePage>>;

/** Candles [from, to) of a series as the route writes them. */
function wire(series: CandleSeries, from: number, to: number): Page['candles'] {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    return {
      time: new Date(series.time[i]!).toISOString(),
      open: series.open[i]!,
      high: series.high[i]!,
      low: series.low[i]!,
      close: series.close[i]!,
      volume: series.volume[i]!,
    };
  });
}

async function failure(promise: Promise<unknown>): Promise<StratboxError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StratboxError);
  return error as StratboxError;
}

/** The real synthetic source, counting every candle it hands out, whole series or pages. */
function countingSynthetic() {
  const synthetic = createSyntheticMarketData();
  const handedOut = { candles: 0 };
  const source: MarketData = {
    async getCandles(request) {
      const answer = await synthetic.getCandles(request);
      handedOut.candles += answer.series.length;
      return answer;
    },
    async getCandlePage(request) {
      const page = await synthetic.getCandlePage!(request);
      handedOut.candles += page.series.length;
      return page;
    },
  };
  return { source, handedOut };
}

/** A real in-memory Store that counts the candles of every chunk read from it. */
function countingStore(): { store: Store; read: { candles: number } } {
  const inner = createMemoryStore();
  const read = { candles: 0 };
  const candles = {
    ...inner.candles,
    async getChunks(...args: Parameters<Store['candles']['getChunks']>) {
      const chunks = await inner.candles.getChunks(...args);
      for (const chunk of chunks) read.candles += chunk.count;
      return chunks;
    },
  };
  return { store: { ...inner, candles }, read };
}

describe('candlePage (GET /api/market-data/candles)', () => {
  it('pages four years of 1m candles with exactly the candles a backtest over the range gets', async () => {
    const md = createMarketData({ store: createMemoryStore(), clock });
    const { source, series } = await md.getCandles(FOUR_YEARS);
    expect(series.length).toBe(1_992_960);

    const first = await candlePage(md, FOUR_YEARS, { limit: 1 });
    expect(first.source).toBe(source);
    expect(first.candles).toEqual(wire(series, 0, 1));
    const second = await candlePage(md, FOUR_YEARS, { limit: 5000, cursor: first.nextCursor! });
    expect(second.candles).toEqual(wire(series, 1, 5001));
    const third = await candlePage(md, FOUR_YEARS, { limit: 3, cursor: second.nextCursor! });
    expect(third.candles).toEqual(wire(series, 5001, 5004));

    // The last page, through the port: it ends the range.
    const last = await md.getCandlePage!({ ...FOUR_YEARS, fromMs: series.time[series.length - 2]!, limit: 10 });
    expect(Array.from(last.series.close)).toEqual(Array.from(series.close.subarray(series.length - 2)));
    expect(Array.from(last.series.time)).toEqual(Array.from(series.time.subarray(series.length - 2)));
    expect(last.nextMs).toBeNull();
  });

  it('hands out only the candles of the page, over one day or four years', async () => {
    const { source, handedOut } = countingSynthetic();
    const md = createMarketData({ store: createMemoryStore(), clock, sources: [source] });
    for (const range of [ONE_DAY, FOUR_YEARS]) {
      handedOut.candles = 0;
      const page = await candlePage(md, range, { limit: 1 });
      expect(page.candles).toHaveLength(1);
      expect(page.nextCursor).not.toBeNull();
      expect(handedOut.candles).toBe(1);
      handedOut.candles = 0;
      await candlePage(md, range, { limit: 100, cursor: page.nextCursor! });
      expect(handedOut.candles).toBe(100);
    }
  });

  it('generates only the page: its columns are not views of a whole-range series', async () => {
    const page = await createSyntheticMarketData().getCandlePage!({ ...FOUR_YEARS, fromMs: Date.parse('2024-07-01T12:00:00.000Z'), limit: 7 });
    expect(page.series.length).toBe(7);
    for (const column of [page.series.time, page.series.open, page.series.close, page.series.volume]) expect(column.buffer.byteLength).toBe(7 * 8);
    expect(Array.from(page.series.close)).toEqual(
      Array.from(generateSyntheticSeries(FOUR_YEARS.symbol, '1m', page.series.time[0]!, page.series.time[6]! + 60_000).close),
    );
  });

  it('reads only the cached chunks of the page’s days, and serves what a backtest gets from them', async () => {
    const { store, read } = countingStore();
    const days = { symbol: 'ETH/USDT:USDT', timeframe: '1m', startDate: '2024-03-01', endDate: '2024-04-29' } as const;
    const imported = generateSyntheticSeries(days.symbol, '1m', Date.parse('2024-03-01T00:00:00.000Z'), Date.parse('2024-04-30T00:00:00.000Z'));
    for (let i = 0; i < imported.length; i++) imported.close[i]! *= 1.5; // not the synthetic prices
    await createStoreCandleCache(store).write('csv', imported);
    const md = createMarketData({ store, clock });

    read.candles = 0;
    const first = await candlePage(md, days, { limit: 10 });
    expect(first.source).toBe('csv');
    expect(first.candles).toEqual(wire(imported, 0, 10));
    expect(read.candles).toBeLessThanOrEqual(1440);

    // A page across a day boundary, reached through cursors.
    let cursor = first.nextCursor!;
    for (let k = 0; k < 3; k++) cursor = (await candlePage(md, days, { limit: 500, cursor })).nextCursor!;
    read.candles = 0;
    const across = await candlePage(md, days, { limit: 1000, cursor });
    expect(across.candles).toEqual(wire(imported, 1510, 2510));
    expect(read.candles).toBeLessThanOrEqual(2 * 1440);

    const whole = await md.getCandles(days);
    expect(whole.source).toBe('csv');
    expect(wire(whole.series, 1510, 2510)).toEqual(across.candles);
  });

  it('answers a page with the same source choice and errors as the whole range', async () => {
    const store = createMemoryStore();
    const cache = createStoreCandleCache(store);
    const day = (d: string) => generateSyntheticSeries('SOL/USDT', '1h', Date.parse(`${d}T00:00:00.000Z`), Date.parse(`${d}T00:00:00.000Z`) + 86_400_000);
    await cache.write('csv', day('2024-06-01'));
    await cache.write('csv', day('2024-06-03'), { days: ['2024-06-02'] }); // 06-02: known to hold nothing
    const range = { symbol: 'SOL/USDT', timeframe: '1h', startDate: '2024-06-01', endDate: '2024-06-05' } as const;

    // CSV lacks 06-04 and 06-05: the default sources fall through to synthetic candles, for pages too.
    const withSynthetic = createMarketData({ store, clock });
    expect((await candlePage(withSynthetic, range, { limit: 1 })).source).toBe('synthetic');
    expect((await candlePage(withSynthetic, { ...range, endDate: '2024-06-03' }, { limit: 1 })).source).toBe('csv');

    // CSV alone: the page names the first missing day, as the whole range does.
    const csvOnly = createMarketData({ store, clock, sources: [createCachedCandleSource(store)] });
    const whole = await failure(csvOnly.getCandles(range));
    const page = await failure(candlePage(csvOnly, range, { limit: 1 }));
    expect(page.code).toBe('NOT_FOUND');
    expect(page.message).toBe(whole.message);
    expect(page.message).toBe('No candles of SOL/USDT 1h from csv for 2024-06-04 (requested 2024-06-01..2024-06-05)');
    const emptyDay = await failure(candlePage(csvOnly, { ...range, startDate: '2024-06-02', endDate: '2024-06-02' }, { limit: 1 }));
    expect(emptyDay.message).toBe((await failure(csvOnly.getCandles({ ...range, startDate: '2024-06-02', endDate: '2024-06-02' }))).message);

    const md = createMarketData({ store, clock, sources: defaultCandleSources(store) });
    expect((await failure(candlePage(md, { ...FOUR_YEARS, startDate: '2020-01-01' }, { limit: 1 }))).code).toBe('VALIDATION_FAILED');
    expect((await failure(candlePage(md, { ...FOUR_YEARS, startDate: '2025-10-21', endDate: '2025-10-22' }, { limit: 1 }))).message).toContain('in the future');
    expect((await failure(candlePage(md, ONE_DAY, { limit: 1, cursor: 'bm90LWEtY3Vyc29y' }))).code).toBe('VALIDATION_FAILED');
  });

  it('ends at the last closed candle', async () => {
    const md = createMarketData({ store: createMemoryStore(), clock });
    const today = { ...FOUR_YEARS, startDate: '2025-10-20', endDate: '2025-10-31' };
    const first = await candlePage(md, today, { limit: 600 });
    const rest = await candlePage(md, today, { limit: 600, cursor: first.nextCursor! });
    // At 10:30 the candles of 00:00..10:29 have closed.
    expect(rest.candles).toHaveLength(30);
    expect(rest.candles.at(-1)!.time).toBe('2025-10-20T10:29:00.000Z');
    expect(rest.nextCursor).toBeNull();
    expect((await md.getCandles(today)).series.length).toBe(630);
  });

  it('slices the whole range for a MarketData without pages', async () => {
    const synthetic = createSyntheticMarketData();
    const plain: MarketData = { getCandles: (request) => synthetic.getCandles(request) };
    const range = { ...ONE_DAY, timeframe: '5m' } as const;
    const a = await candlePage(plain, range, { limit: 100 });
    const b = await candlePage(synthetic, range, { limit: 100 });
    expect(a).toEqual(b);
    expect(await candlePage(plain, range, { limit: 200, cursor: a.nextCursor! })).toEqual(
      await candlePage(synthetic, range, { limit: 200, cursor: b.nextCursor! }),
    );
  });
});
