import { describe, expect, it } from 'vitest';
import type { WireCandles } from './backtest-job.js';
import { candleBytes, createTrialCandleCache } from './trial-candle-cache.js';

/** One symbol of `n` candles: 48 × n bytes. */
function candles(n: number): WireCandles[] {
  const column = () => new Float64Array(n);
  return [{ time: column(), open: column(), high: column(), low: column(), close: column(), volume: column() }];
}

describe('the trial candle cache of a child', () => {
  it('keeps the two most recently used sets, dropping the least recently used', () => {
    const cache = createTrialCandleCache({ maxEntries: 2, maxBytes: 1e9 });
    const a = candles(1);
    cache.put('a', a);
    cache.put('b', candles(1));
    expect(cache.get('a')).toBe(a); // a is now the most recently used
    cache.put('c', candles(1));
    expect(cache.keys()).toEqual(['a', 'c']);
    expect(cache.get('b')).toBeUndefined();
  });

  it('never holds more than its bytes: the oldest go first, and a set alone past the limit is not kept', () => {
    expect(candleBytes(candles(10))).toBe(480);
    const cache = createTrialCandleCache({ maxEntries: 2, maxBytes: 1000 });
    cache.put('a', candles(10));
    cache.put('b', candles(11));
    expect(cache.keys()).toEqual(['b']);
    cache.put('huge', candles(100));
    expect(cache.keys()).toEqual([]);
  });

  it('a set put again replaces the old one and becomes the most recent', () => {
    const cache = createTrialCandleCache({ maxEntries: 2, maxBytes: 1e9 });
    cache.put('a', candles(1));
    cache.put('b', candles(1));
    const again = candles(2);
    cache.put('a', again);
    expect(cache.keys()).toEqual(['b', 'a']);
    expect(cache.get('a')).toBe(again);
  });
});
