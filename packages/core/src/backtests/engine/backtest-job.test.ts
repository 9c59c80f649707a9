import { describe, expect, it } from 'vitest';
import { normalizeJob } from './backtest-job.js';

const row = (time: number, close = 100) => ({ time, open: close, high: close + 1, low: close - 1, close, volume: 5 });

describe('normalizeJob', () => {
  it('turns rows and columns into the same wire candles', () => {
    const rows = [row(1_000), row(2_000, 101), row(3_000, 102)];
    const columns = {
      time: rows.map((r) => r.time),
      open: rows.map((r) => r.open),
      high: rows.map((r) => r.high),
      low: rows.map((r) => r.low),
      close: rows.map((r) => r.close),
      volume: rows.map((r) => r.volume),
    };
    const a = normalizeJob({ source: 'x', candles: { 'A/B': rows } });
    const b = normalizeJob({ source: 'x', candles: { 'A/B': columns } });
    expect(a.candles[0]).toEqual(b.candles[0]);
    const c = a.candles[0]!;
    expect([c.time[1], c.open[1], c.high[1], c.low[1], c.close[1], c.volume[1]]).toEqual([2_000, 101, 102, 100, 101, 5]);
  });

  it('sends a view into a larger buffer as a compact copy, and a whole Float64Array as it is', () => {
    const big = new Float64Array(10).map((_, i) => 100 + i);
    const view = {
      time: big.map((_, i) => 1_000 * (i + 1)).subarray(2, 5),
      open: big.subarray(2, 5),
      high: big.subarray(2, 5),
      low: big.subarray(2, 5),
      close: big.subarray(2, 5),
      volume: big.subarray(2, 5),
    };
    const wire = normalizeJob({ source: 'x', candles: { 'A/B': view } }).candles[0]!;
    expect(wire.close.buffer.byteLength).toBe(3 * 8);
    expect([...wire.close]).toEqual([102, 103, 104]);
    const whole = new Float64Array([1, 2, 3]);
    const same = normalizeJob({ source: 'x', candles: { 'A/B': { time: whole, open: whole, high: whole, low: whole, close: whole, volume: whole } } })
      .candles[0]!;
    expect(same.close).toBe(whole);
  });

  it('refuses bad rows with INVALID_JOB naming the candle, strings included', () => {
    const bad: Array<[unknown, RegExp]> = [
      [[row(2_000), row(1_000)], /\[1\]: candle times must be strictly ascending/],
      [[row(1_000), { ...row(2_000), close: '5' }], /\[1\]: prices must be positive finite numbers/],
      [[{ ...row(1_000), high: -1 }], /\[0\]: prices must be positive finite numbers/],
      [[{ ...row(1_000), volume: '5' }], /\[0\]: volume must be a finite number/],
      [[{ ...row(1_000), volume: Number.NaN }], /\[0\]: volume must be a finite number/],
      [[{ ...row(1_000), time: 'not a time' }], /\[0\]: invalid time/],
    ];
    for (const [candles, message] of bad) {
      expect(() => normalizeJob({ source: 'x', candles: { 'A/B': candles as never } })).toThrow(message);
      try {
        normalizeJob({ source: 'x', candles: { 'A/B': candles as never } });
      } catch (error) {
        expect((error as { code?: string }).code).toBe('INVALID_JOB');
      }
    }
  });
});
