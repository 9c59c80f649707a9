import { describe, expect, it } from 'vitest';
import { normalizeJob } from './backtest-job.js';

const row = (time: number, close = 100) => ({ time, open: close, high: close + 1, low: close - 1, close, volume: 5 });

describe('normalizeJob', () => {
  it('packs rows and columns into the same wire candles', () => {
    const rows = [row(1_000), row(2_000, 101), row(3_000, 102)];
    const columns = {
      time: rows.map((r) => r.time), open: rows.map((r) => r.open), high: rows.map((r) => r.high),
      low: rows.map((r) => r.low), close: rows.map((r) => r.close), volume: rows.map((r) => r.volume),
    };
    const a = normalizeJob({ source: 'x', candles: { 'A/B': rows } });
    const b = normalizeJob({ source: 'x', candles: { 'A/B': columns } });
    expect([...a.candles[0]!]).toEqual([...b.candles[0]!]);
    expect([...a.candles[0]!.subarray(6, 12)]).toEqual([2_000, 101, 102, 100, 101, 5]);
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
