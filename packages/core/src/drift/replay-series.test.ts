import { describe, expect, it } from 'vitest';
import { flatMarketData } from '../deployments/live-harness-parts.js';
import type { MarketData } from '../ports/market-data.js';
import type { RecordedCandle } from './drift-types.js';
import { loadReplaySeries } from './replay-series.js';

const MIN = 60_000;
const T0 = Date.parse('2026-03-02T10:00:00.000Z');

const recorded = (symbol: string, time: number, close: number): RecordedCandle => ({
  deploymentId: 'dep_x',
  symbol,
  time,
  open: close,
  high: close,
  low: close,
  close,
  volume: 2,
  equity: 10_000,
  recordedAt: new Date(time + MIN).toISOString(),
});

describe('loadReplaySeries', () => {
  it('replays the recorded candles, fills the window candles the deployment missed from the market data as downtime, and warms up before the window', async () => {
    const series = await loadReplaySeries(flatMarketData(), {
      symbols: ['BTC/USDT:USDT'],
      timeframe: '1m',
      window: { from: T0, to: T0 + 4 * MIN },
      recorded: [recorded('BTC/USDT:USDT', T0, 1), recorded('BTC/USDT:USDT', T0 + 2 * MIN, 3), recorded('BTC/USDT:USDT', T0 + 3 * MIN, 4)],
      warmup: 2,
      nowMs: T0 + 10 * MIN,
    });
    const [s] = series.series;
    const times = Array.from(s!.time).map((t) => (t - T0) / MIN);
    // 2 + 5 warm-up candles (as the live runner warms up), then the window: recorded, missed, recorded, recorded
    expect(times).toEqual([-7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3]);
    expect(Array.from(s!.close.subarray(7))).toEqual([1, s!.close[8], 3, 4]);
    expect(s!.close[8]).not.toBe(2);
    expect(series.startTime).toBe(T0);
    expect(series.downtimeCandles).toEqual([{ symbol: 'BTC/USDT:USDT', time: T0 + MIN }]);
  });

  it('never uses a market candle that had not closed, and runs on the recording alone when the market data fails', async () => {
    const failing: MarketData = {
      getCandles: async () => {
        throw new Error('down');
      },
    };
    const alone = await loadReplaySeries(failing, {
      symbols: ['BTC/USDT:USDT'],
      timeframe: '1m',
      window: { from: T0, to: T0 + 3 * MIN },
      recorded: [recorded('BTC/USDT:USDT', T0, 1)],
      warmup: 3,
      nowMs: T0 + 10 * MIN,
    });
    expect(Array.from(alone.series[0]!.time)).toEqual([T0]);
    expect(alone.downtimeCandles).toEqual([]);

    const open = await loadReplaySeries(flatMarketData(), {
      symbols: ['BTC/USDT:USDT'],
      timeframe: '1m',
      window: { from: T0, to: T0 + 5 * MIN },
      recorded: [recorded('BTC/USDT:USDT', T0, 1)],
      warmup: 0,
      nowMs: T0 + 2 * MIN + 30_000,
    });
    // T0 + 1 min closed at T0 + 2 min; T0 + 2 min is still open
    expect(open.downtimeCandles.map((c) => (c.time - T0) / MIN)).toEqual([1]);
  });

  it('asks the market data for the window only where the recording has gaps: none for a complete one, the lead for one that starts late', async () => {
    const asked: Array<{ startDate: string; endDate: string }> = [];
    const flat = flatMarketData();
    const counting: MarketData = {
      getCandles: (request) => {
        asked.push({ startDate: request.startDate, endDate: request.endDate });
        return flat.getCandles(request);
      },
    };
    const complete = await loadReplaySeries(counting, {
      symbols: ['BTC/USDT:USDT'],
      timeframe: '1m',
      window: { from: T0, to: T0 + 3 * MIN },
      recorded: [0, 1, 2].map((k) => recorded('BTC/USDT:USDT', T0 + k * MIN, k + 1)),
      warmup: 0,
      nowMs: T0 + 10 * MIN,
    });
    expect(asked).toEqual([]);
    expect(Array.from(complete.series[0]!.close)).toEqual([1, 2, 3]);
    expect(complete.downtimeCandles).toEqual([]);

    const late = await loadReplaySeries(counting, {
      symbols: ['BTC/USDT:USDT'],
      timeframe: '1m',
      window: { from: T0, to: T0 + 4 * MIN },
      // given out of order, one time twice: the last given for a time is kept
      recorded: [recorded('BTC/USDT:USDT', T0 + 3 * MIN, 4), recorded('BTC/USDT:USDT', T0 + 2 * MIN, 9), recorded('BTC/USDT:USDT', T0 + 2 * MIN, 3)],
      warmup: 0,
      nowMs: T0 + 10 * MIN,
    });
    expect(asked).toHaveLength(1);
    expect(late.downtimeCandles.map((c) => (c.time - T0) / MIN)).toEqual([0, 1]);
    expect(Array.from(late.series[0]!.time).map((t) => (t - T0) / MIN)).toEqual([0, 1, 2, 3]);
    expect(Array.from(late.series[0]!.close.subarray(2))).toEqual([3, 4]);
  });
});
