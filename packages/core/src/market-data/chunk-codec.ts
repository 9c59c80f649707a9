import type { CandleSeries, TimeframeName } from '../ports/market-data.js';
import type { CandleChunkRecord } from '../ports/store.js';
import { allocateSeries } from './candle-series.js';

/*
 * The byte layout of `CandleChunkRecord.data`: `count` consecutive float64 sextuples
 * [timeMs, open, high, low, close, volume], little-endian. Float64 keeps every value exactly, so
 * pack then unpack gives back the very same numbers.
 */

const FIELDS = 6;
const BYTES_PER_CANDLE = FIELDS * 8;
const LITTLE_ENDIAN_HOST = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** Bytes one packed candle takes. */
export const CANDLE_BYTES = BYTES_PER_CANDLE;

/**
 * Packs candles [from, to) of `series` (default: all), which must all open on UTC `day`, into
 * one chunk record of `source`.
 */
export function packCandleChunk(source: string, day: string, series: CandleSeries, from = 0, to = series.length): CandleChunkRecord {
  const count = Math.max(0, to - from);
  const values = new Float64Array(count * FIELDS);
  const { time, open, high, low, close, volume } = series;
  for (let i = 0, j = 0; i < count; i++, j += FIELDS) {
    const k = from + i;
    values[j] = time[k]!;
    values[j + 1] = open[k]!;
    values[j + 2] = high[k]!;
    values[j + 3] = low[k]!;
    values[j + 4] = close[k]!;
    values[j + 5] = volume[k]!;
  }
  let data = new Uint8Array(values.buffer);
  if (!LITTLE_ENDIAN_HOST) {
    data = new Uint8Array(values.byteLength);
    const view = new DataView(data.buffer);
    for (let j = 0; j < values.length; j++) view.setFloat64(j * 8, values[j]!, true);
  }
  return { source, symbol: series.symbol, timeframe: series.timeframe, day, count, data };
}

/** The float64 values of a chunk, read without copying when the bytes are 8-aligned. */
function chunkValues(chunk: CandleChunkRecord): Float64Array {
  const { data, count } = chunk;
  if (data.byteLength < count * BYTES_PER_CANDLE) {
    throw new Error(`Candle chunk ${chunk.source} ${chunk.symbol} ${chunk.timeframe} ${chunk.day} is truncated: ${data.byteLength} bytes for ${count} candles`);
  }
  const length = count * FIELDS;
  if (LITTLE_ENDIAN_HOST) {
    if (data.byteOffset % 8 === 0) return new Float64Array(data.buffer, data.byteOffset, length);
    return new Float64Array(data.slice(0, count * BYTES_PER_CANDLE).buffer);
  }
  const values = new Float64Array(length);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let j = 0; j < length; j++) values[j] = view.getFloat64(j * 8, true);
  return values;
}

/**
 * Copies the candles of `chunk` that open in [fromMs, toMs) into `target` at `offset`; returns
 * how many were copied. `target` must have room for `chunk.count` candles from `offset`.
 */
export function unpackCandleChunkInto(chunk: CandleChunkRecord, target: CandleSeries, offset: number, fromMs = -Infinity, toMs = Infinity): number {
  const values = chunkValues(chunk);
  const { time, open, high, low, close, volume } = target;
  let n = offset;
  for (let j = 0; j < values.length; j += FIELDS) {
    const t = values[j]!;
    if (t < fromMs || t >= toMs) continue;
    time[n] = t;
    open[n] = values[j + 1]!;
    high[n] = values[j + 2]!;
    low[n] = values[j + 3]!;
    close[n] = values[j + 4]!;
    volume[n] = values[j + 5]!;
    n++;
  }
  return n - offset;
}

/** The candles of one chunk as a series of their own. */
export function unpackCandleChunk(chunk: CandleChunkRecord): CandleSeries {
  const series = allocateSeries(chunk.symbol, chunk.timeframe as TimeframeName, chunk.count);
  unpackCandleChunkInto(chunk, series, 0);
  return series;
}
