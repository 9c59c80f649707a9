import type { FundingSeries } from '../ports/market-data.js';
import type { FundingChunkRecord } from '../ports/store.js';

/*
 * The byte layout of `FundingChunkRecord.data`: `count` consecutive float64 pairs
 * [timeMs, rate], little-endian. Float64 keeps every value exactly, so pack then unpack gives
 * back the very same numbers.
 */

const FIELDS = 2;
const BYTES_PER_EVENT = FIELDS * 8;
const LITTLE_ENDIAN_HOST = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** Packs events [from, to) of `series` (default: all), which must all fall on UTC `day`, into one chunk of `source`. */
export function packFundingChunk(source: string, day: string, series: FundingSeries, from = 0, to = series.length): FundingChunkRecord {
  const count = Math.max(0, to - from);
  const values = new Float64Array(count * FIELDS);
  for (let i = 0; i < count; i++) {
    values[i * FIELDS] = series.time[from + i]!;
    values[i * FIELDS + 1] = series.rate[from + i]!;
  }
  let data = new Uint8Array(values.buffer);
  if (!LITTLE_ENDIAN_HOST) {
    data = new Uint8Array(values.byteLength);
    const view = new DataView(data.buffer);
    for (let j = 0; j < values.length; j++) view.setFloat64(j * 8, values[j]!, true);
  }
  return { source, symbol: series.symbol, day, count, data };
}

/**
 * Copies the events of `chunk` at times in [fromMs, toMs) into `target` at `offset`; returns how
 * many were copied. `target` must have room for `chunk.count` events from `offset`.
 */
export function unpackFundingChunkInto(chunk: FundingChunkRecord, target: FundingSeries, offset: number, fromMs = -Infinity, toMs = Infinity): number {
  const { data, count } = chunk;
  if (data.byteLength < count * BYTES_PER_EVENT) {
    throw new Error(`Funding chunk ${chunk.source} ${chunk.symbol} ${chunk.day} is truncated: ${data.byteLength} bytes for ${count} events`);
  }
  const view = new DataView(data.buffer, data.byteOffset, count * BYTES_PER_EVENT);
  let n = offset;
  for (let i = 0; i < count; i++) {
    const t = view.getFloat64(i * BYTES_PER_EVENT, true);
    if (t < fromMs || t >= toMs) continue;
    target.time[n] = t;
    target.rate[n] = view.getFloat64(i * BYTES_PER_EVENT + 8, true);
    n++;
  }
  return n - offset;
}
