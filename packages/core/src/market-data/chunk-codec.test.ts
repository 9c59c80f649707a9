import { describe, expect, it } from 'vitest';
import { allocateSeries } from './candle-series.js';
import { packCandleChunk, unpackCandleChunk, unpackCandleChunkInto } from './chunk-codec.js';

function sample() {
  const s = allocateSeries('BTC/USDT:USDT', '1m', 3);
  const t = Date.parse('2024-01-01T00:00:00.000Z');
  const rows = [
    [t, 42_000.123456789, 42_010.5, 41_990.000000001, 42_001.1, 1.0000000000000002],
    [t + 60_000, 0.1 + 0.2, Number.MAX_VALUE, Number.MIN_VALUE, 1e-300, 0],
    [t + 120_000, 1 / 3, 2 / 3, 1 / 7, Math.PI, 123_456_789.987],
  ];
  rows.forEach((r, i) => {
    s.time[i] = r[0]!;
    s.open[i] = r[1]!;
    s.high[i] = r[2]!;
    s.low[i] = r[3]!;
    s.close[i] = r[4]!;
    s.volume[i] = r[5]!;
  });
  return s;
}

const columns = (s: ReturnType<typeof sample>) => [s.time, s.open, s.high, s.low, s.close, s.volume].map((c) => Array.from(c));

describe('chunk codec', () => {
  it('packs a day as little-endian float64 sextuples and unpacks it exactly', () => {
    const series = sample();
    const chunk = packCandleChunk('csv', '2024-01-01', series);
    expect(chunk).toMatchObject({ source: 'csv', symbol: 'BTC/USDT:USDT', timeframe: '1m', day: '2024-01-01', count: 3 });
    expect(chunk.data.byteLength).toBe(3 * 48);
    const view = new DataView(chunk.data.buffer, chunk.data.byteOffset);
    expect(view.getFloat64(0, true)).toBe(series.time[0]);
    expect(view.getFloat64(8, true)).toBe(series.open[0]);
    expect(view.getFloat64(48 + 16, true)).toBe(Number.MAX_VALUE);
    expect(columns(unpackCandleChunk(chunk))).toEqual(columns(series));
  });

  it('reads bytes that are not 8-aligned (as a database driver may hand them over)', () => {
    const chunk = packCandleChunk('csv', '2024-01-01', sample());
    const shifted = new Uint8Array(chunk.data.byteLength + 3);
    shifted.set(chunk.data, 3);
    const unaligned = { ...chunk, data: shifted.subarray(3) };
    expect(columns(unpackCandleChunk(unaligned))).toEqual(columns(sample()));
  });

  it('packs part of a series and unpacks into a window', () => {
    const chunk = packCandleChunk('csv', '2024-01-01', sample(), 1, 3);
    expect(chunk.count).toBe(2);
    const target = allocateSeries('BTC/USDT:USDT', '1m', 2);
    const t = Date.parse('2024-01-01T00:00:00.000Z');
    expect(unpackCandleChunkInto(chunk, target, 0, t, t + 120_000)).toBe(1);
    expect(target.time[0]).toBe(t + 60_000);
  });
});
