import { describe, expect, it } from 'vitest';
import { TIMEFRAME_MS, type CandleSeries } from '../ports/market-data.js';
import { sliceSeries } from './candle-series.js';
import { createSyntheticMarketData } from './synthetic-market-data.js';

const md = createSyntheticMarketData();
const columns = (s: CandleSeries) => [s.time, s.open, s.high, s.low, s.close, s.volume].map((c) => Array.from(c));

describe('createSyntheticMarketData', () => {
  it('gives identical candles for the same request', async () => {
    const request = { symbol: 'BTC/USDT:USDT', timeframe: '15m', startDate: '2024-03-01', endDate: '2024-03-10' } as const;
    const a = await md.getCandles(request);
    const b = await createSyntheticMarketData().getCandles(request);
    expect(a.source).toBe('synthetic');
    expect(columns(b.series)).toEqual(columns(a.series));
  });

  it('agrees on every candle two overlapping ranges share', async () => {
    const a = (await md.getCandles({ symbol: 'ETH/USDT:USDT', timeframe: '1m', startDate: '2024-01-01', endDate: '2024-01-03' })).series;
    const b = (await md.getCandles({ symbol: 'ETH/USDT:USDT', timeframe: '1m', startDate: '2024-01-02', endDate: '2024-01-05' })).series;
    const offset = 1440; // b starts one day after a
    const shared = a.length - offset;
    expect(shared).toBe(2880);
    for (const key of ['time', 'open', 'high', 'low', 'close', 'volume'] as const) {
      expect(Array.from(b[key].subarray(0, shared))).toEqual(Array.from(a[key].subarray(offset)));
    }
  });

  it('keeps OHLC invariants over a year of 1m candles on an exact time grid', async () => {
    const { series } = await md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1m', startDate: '2023-01-01', endDate: '2023-12-31' });
    expect(series.length).toBe(525_600);
    const start = Date.parse('2023-01-01T00:00:00.000Z');
    let bad = 0;
    for (let i = 0; i < series.length; i++) {
      const o = series.open[i]!;
      const h = series.high[i]!;
      const l = series.low[i]!;
      const c = series.close[i]!;
      const v = series.volume[i]!;
      const ok =
        series.time[i] === start + i * 60_000 &&
        Number.isFinite(o + h + l + c + v) &&
        l > 0 &&
        v > 0 &&
        h >= Math.max(o, c) &&
        l <= Math.min(o, c) &&
        (i === 0 || o === series.close[i - 1]);
      if (!ok) bad++;
    }
    expect(bad).toBe(0);
  });

  it('moves like a market: prices vary, and trends long enough for moving averages to cross', async () => {
    const { series } = await md.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1h', startDate: '2024-01-01', endDate: '2024-06-30' });
    const close = Array.from(series.close);
    const sma = (n: number, i: number) => close.slice(i - n + 1, i + 1).reduce((a, b) => a + b, 0) / n;
    let crossings = 0;
    for (let i = 51; i < close.length; i++) {
      if (Math.sign(sma(10, i) - sma(50, i)) !== Math.sign(sma(10, i - 1) - sma(50, i - 1))) crossings++;
    }
    expect(crossings).toBeGreaterThan(20);
    expect(crossings).toBeLessThan(close.length / 10);
    expect(Math.max(...close) / Math.min(...close)).toBeGreaterThan(1.1);
  });

  it('gives different symbols different prices', async () => {
    const range = { timeframe: '1h', startDate: '2024-01-01', endDate: '2024-01-02' } as const;
    const btc = (await md.getCandles({ symbol: 'BTC/USDT:USDT', ...range })).series;
    const eth = (await md.getCandles({ symbol: 'ETH/USDT:USDT', ...range })).series;
    expect(Array.from(btc.time)).toEqual(Array.from(eth.time));
    expect(btc.close[0]).not.toBe(eth.close[0]);
    const sameMoves = Array.from(btc.close).filter((c, i) => i > 0 && Math.sign(c - btc.close[i - 1]!) === Math.sign(eth.close[i]! - eth.close[i - 1]!)).length;
    expect(sameMoves).toBeLessThan(btc.length - 5);
  });

  it('places every candle of every timeframe on its grid, within the requested days', async () => {
    for (const timeframe of Object.keys(TIMEFRAME_MS) as Array<keyof typeof TIMEFRAME_MS>) {
      const { series } = await md.getCandles({ symbol: 'SOL/USDT', timeframe, startDate: '2024-02-28', endDate: '2024-03-01' });
      const step = TIMEFRAME_MS[timeframe];
      expect(series.length).toBe((3 * 86_400_000) / step);
      expect(series.time[0]).toBe(Date.parse('2024-02-28T00:00:00.000Z'));
      expect(series.time[series.length - 1]! + step).toBe(Date.parse('2024-03-02T00:00:00.000Z'));
    }
  });

  it('closes a 1h candle at the price the 1m candles close that hour', async () => {
    const range = { symbol: 'BTC/USDT:USDT', startDate: '2024-05-01', endDate: '2024-05-01' };
    const hours = (await md.getCandles({ ...range, timeframe: '1h' })).series;
    const minutes = (await md.getCandles({ ...range, timeframe: '1m' })).series;
    expect(hours.close[3]).toBe(minutes.close[4 * 60 - 1]);
    expect(hours.open[3]).toBe(minutes.open[3 * 60]);
  });

  it('computes any page alone, as exactly that slice of the whole range', async () => {
    for (const timeframe of ['1m', '15m', '1d'] as const) {
      const range = { symbol: 'BTC/USDT:USDT', timeframe, startDate: '2023-01-01', endDate: '2023-12-31' };
      const { series } = await md.getCandles(range);
      for (const at of [0, 1, Math.floor(series.length / 3), series.length - 5]) {
        const page = await md.getCandlePage!({ ...range, fromMs: series.time[at]!, limit: 10 });
        const end = Math.min(series.length, at + 10);
        expect(columns(page.series)).toEqual(columns(sliceSeries(series, at, end)));
        expect(page.series.time.buffer.byteLength).toBe((end - at) * 8); // generated alone, not cut from the range
        expect(page.nextMs).toBe(end < series.length ? series.time[end]! : null);
      }
    }
  });

  it('refuses ranges over the candle limit', async () => {
    await expect(md.getCandles({ symbol: 'BTC/USDT', timeframe: '1m', startDate: '2019-01-01', endDate: '2024-01-01' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
