import ccxt from 'ccxt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../testing/memory-store.js';
import { fakeBinanceKline, startFakeBinance, type FakeBinance } from '../testing/fake-binance-usdm.js';
import { createCachedCandleSource } from './cached-market-data.js';
import { downloadCandles, type DownloadProgress } from './candle-download.js';
import { moveExchangeApi } from '../exchanges/move-exchange-api.js';

/* The real ccxt binanceusdm class against the local fake Binance (klines served up to now). */

const SYMBOL = 'BTC/USDT:USDT';
const HOUR = 3_600_000;
const T0 = Date.parse('2024-01-01T00:00:00.000Z');

describe('downloadCandles', () => {
  let fake: FakeBinance;
  beforeAll(async () => {
    fake = await startFakeBinance();
  });
  afterAll(() => fake.close());

  function exchange() {
    const ex = new ccxt.binanceusdm({ enableRateLimit: false });
    moveExchangeApi(ex, fake.url);
    return ex;
  }
  const klineCalls = () => fake.calls.filter((c) => c.path === '/fapi/v1/klines');

  it('caches every day of the range, reports progress per batch, and skips cached days when run again', async () => {
    const store = createMemoryStore();
    const progress: DownloadProgress[] = [];
    const request = { store, symbol: SYMBOL, timeframe: '1h' as const, startDate: '2024-01-01', endDate: '2024-01-03', batchDays: 1 };
    fake.calls.length = 0;
    const first = await downloadCandles({ ...request, exchange: exchange(), onProgress: (p) => progress.push(p) });
    expect(first).toEqual({ source: 'ccxt:binanceusdm', days: 3, cachedDays: 0, downloadedDays: 3, candles: 72 });
    expect(progress.map((p) => p.doneDays)).toEqual([0, 1, 2, 3]);
    expect(klineCalls().length).toBeGreaterThan(0);

    const { series } = await createCachedCandleSource(store, 'ccxt:binanceusdm').getCandles({
      symbol: SYMBOL,
      timeframe: '1h',
      startDate: '2024-01-01',
      endDate: '2024-01-03',
    });
    expect(series.length).toBe(72);
    const k = fakeBinanceKline(T0 + 30 * HOUR).map(Number);
    expect([series.time[30], series.open[30], series.high[30], series.low[30], series.close[30], series.volume[30]]).toEqual(k.slice(0, 6));

    fake.calls.length = 0;
    const again = await downloadCandles({ ...request, exchange: exchange() });
    expect(again).toEqual({ source: 'ccxt:binanceusdm', days: 3, cachedDays: 3, downloadedDays: 0, candles: 72 });
    expect(fake.calls).toEqual([]); // not even the markets
  });

  it('resumes: asks the exchange only for the days not cached yet', async () => {
    const store = createMemoryStore();
    await downloadCandles({ store, exchange: exchange(), symbol: SYMBOL, timeframe: '1h', startDate: '2024-01-02', endDate: '2024-01-02' });
    fake.calls.length = 0;
    const result = await downloadCandles({
      store,
      exchange: exchange(),
      symbol: SYMBOL,
      timeframe: '1h',
      startDate: '2024-01-01',
      endDate: '2024-01-03',
      batchDays: 1,
    });
    expect(result).toMatchObject({ days: 3, cachedDays: 1, downloadedDays: 2, candles: 72 });
    const asked = new Set(klineCalls().map((c) => new Date(Number(c.params['startTime'])).toISOString().slice(0, 10)));
    expect([...asked].sort()).toEqual(['2024-01-01', '2024-01-03']);
  });
});
