/*
 * `x ** y` computed the same on every JavaScript engine. `Math.pow` and `**` are not specified to
 * the last bit, and V8 changed its implementation between Node 20 and Node 24: a backtest's CAGR
 * differed in its last bits across the Node versions Stratbox supports. Here the logarithm and
 * the exponential are evaluated in fixed point on BigInts with 64 guard bits, and the result is
 * rounded once to the nearest double (`Number(bigint)` rounds to nearest, ties to even), so the
 * answer depends on nothing but the inputs. About 20-40 µs a call: for metrics computed once per
 * run, not for loops over candles.
 */

/** Fraction bits of the fixed-point numbers (53 of a double plus guard bits). */
const P = 53n + 64n;
const ONE = 1n << P;

/** `x` (finite, > 0) as `mantissa * 2^exponent` with an odd or zero mantissa: exact. */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const fraction = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  return biased === 0 ? { mantissa: fraction, exponent: -1074 } : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** 2 * atanh(s) = ln((1 + s) / (1 - s)) for a fixed-point |s| <= 1/3. */
function twiceAtanh(s: bigint): bigint {
  const s2 = (s * s) >> P;
  let power = s;
  let sum = 0n;
  for (let k = 1n; power !== 0n; k += 2n) {
    sum += power / k;
    power = (power * s2) >> P;
  }
  return 2n * sum;
}

const LN2 = twiceAtanh(ONE / 3n);

/** ln(m * 2^e) in fixed point, for an integer m > 0. */
function ln(mantissa: bigint, exponent: number): bigint {
  // Normalize m to [1, 2) in fixed point: m = M * 2^-P with ONE <= M < 2 * ONE.
  const bits = BigInt(mantissa.toString(2).length);
  const shift = P - (bits - 1n);
  const m = shift >= 0n ? mantissa << shift : mantissa >> -shift;
  const e = BigInt(exponent) + (bits - 1n);
  // ln(m) = 2 atanh((m - 1) / (m + 1)), |s| <= 1/3 on [1, 2).
  const s = ((m - ONE) << P) / (m + ONE);
  return e * LN2 + twiceAtanh(s);
}

/** The double nearest to `value * 2^(scale - P)`, for a fixed-point value > 0. */
function toNumber(value: bigint, scale: bigint): number {
  // Keep 64 significant bits with a sticky bit so one rounding (Number's) is exact to nearest.
  const bits = BigInt(value.toString(2).length);
  let shift = bits - 64n;
  let head = value;
  if (shift > 0n) {
    const sticky = value & ((1n << shift) - 1n) ? 1n : 0n;
    head = (value >> shift) | sticky;
  } else shift = 0n;
  let result = Number(head);
  let e = Number(scale + shift - P);
  // Exact scaling by powers of two, in steps that stay within the double range.
  while (e !== 0) {
    const step = Math.max(-1000, Math.min(e, 1000));
    result *= powerOfTwo(step);
    e -= step;
  }
  return result;
}

/** 2^n for an integer -1022 <= n <= 1023, built from its bits (no Math call involved). */
function powerOfTwo(n: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setUint32(0, (n + 1023) << 20);
  return view.getFloat64(0);
}

/**
 * `x ** y` for finite x > 0 and finite y, correctly rounded but for results within about 2^-64
 * of a rounding boundary, and identical on every engine. Other inputs (x <= 0, NaN, infinities)
 * answer as `**` does, which is exact for them.
 */
export function exactPow(x: number, y: number): number {
  if (!(x > 0) || !Number.isFinite(x) || !Number.isFinite(y)) return x ** y;
  if (y === 0 || x === 1) return 1;
  const { mantissa, exponent } = decompose(x);
  const { mantissa: ym, exponent: ye } = decompose(Math.abs(y));
  // z = y * ln(x), fixed point.
  let z = ln(mantissa, exponent) * ym;
  z = ye >= 0 ? z << BigInt(ye) : z >> BigInt(-ye);
  if (y < 0) z = -z;
  // A result far outside the double range: let ** say Infinity or 0.
  if (z > 710n * ONE || z < -746n * ONE) return x ** y;
  // exp(z) = 2^k * exp(r), |r| <= ln2 / 2.
  let k = z / LN2;
  let r = z - k * LN2;
  if (r > LN2 / 2n) {
    k += 1n;
    r -= LN2;
  } else if (r < -LN2 / 2n) {
    k -= 1n;
    r += LN2;
  }
  let term = ONE;
  let sum = ONE;
  for (let n = 1n; term !== 0n; n++) {
    term = (term * r) / (n << P);
    sum += term;
  }
  return toNumber(sum, k);
}
