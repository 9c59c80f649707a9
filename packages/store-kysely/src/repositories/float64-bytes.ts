/*
 * Float64 values as stored bytes: consecutive little-endian float64s (as candle chunks), which
 * keep every value bit for bit (-0, subnormals, infinities).
 */

const LITTLE_ENDIAN_HOST = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** `values` as little-endian bytes, in a Buffer (both drivers bind it as a BLOB / bytea): over the same memory on little-endian hosts. */
export function float64Bytes(values: Float64Array): Buffer {
  if (LITTLE_ENDIAN_HOST) return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  const bytes = Buffer.allocUnsafe(values.byteLength);
  for (let i = 0; i < values.length; i++) bytes.writeDoubleLE(values[i]!, i * 8);
  return bytes;
}

/**
 * The values of little-endian float64 `bytes`, in an array of their own (aligned, and apart
 * from the driver's buffer, which a read cache may share). Throws if `bytes` is not whole values.
 */
export function float64Values(bytes: Uint8Array): Float64Array {
  if (bytes.byteLength % 8 !== 0) throw new Error(`Stored float64 values are ${bytes.byteLength} bytes, not a multiple of 8`);
  const values = new Float64Array(bytes.byteLength / 8);
  if (LITTLE_ENDIAN_HOST) {
    new Uint8Array(values.buffer).set(bytes);
    return values;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < values.length; i++) values[i] = view.getFloat64(i * 8, true);
  return values;
}
