/*
 * A forward record's equity at candle resolution as stored (`forward.points`): consecutive
 * float64 pairs `[timeMs, equity]`, little-endian, oldest first.
 */

export interface EquityColumns {
  times: Float64Array;
  equity: Float64Array;
}

const PAIR = 16;

/** The stored points as columns (none: empty columns). */
export function decodePoints(bytes: Uint8Array | undefined): EquityColumns {
  const n = bytes ? Math.floor(bytes.byteLength / PAIR) : 0;
  const times = new Float64Array(n);
  const equity = new Float64Array(n);
  if (!bytes || n === 0) return { times, equity };
  const view = new DataView(bytes.buffer, bytes.byteOffset, n * PAIR);
  for (let i = 0; i < n; i++) {
    times[i] = view.getFloat64(i * PAIR, true);
    equity[i] = view.getFloat64(i * PAIR + 8, true);
  }
  return { times, equity };
}

/** `stored` with `points` appended after it: the stored bytes are copied unchanged. */
export function appendPoints(stored: Uint8Array | undefined, points: ReadonlyArray<readonly [number, number]>): Uint8Array {
  const before = stored ? stored.byteLength - (stored.byteLength % PAIR) : 0;
  const out = new Uint8Array(before + points.length * PAIR);
  if (stored && before > 0) out.set(stored.subarray(0, before), 0);
  const view = new DataView(out.buffer, out.byteOffset + before, points.length * PAIR);
  points.forEach(([time, equity], i) => {
    view.setFloat64(i * PAIR, time, true);
    view.setFloat64(i * PAIR + 8, equity, true);
  });
  return out;
}
