/*
 * The standard normal distribution: its density, its cumulative distribution function and its
 * quantile, to a few 1e-15 relative error in the lower tail as in the centre (the tests check
 * 1e-13 against 50-digit references). Pure functions, no state.
 */

const SQRT_2PI = Math.sqrt(2 * Math.PI);

/** Below this |x| Phi comes from Marsaglia's series, above it from Laplace's continued fraction. */
const SERIES_LIMIT = 2;

/**
 * phi(x) = e^(-x^2/2) / sqrt(2 pi), the standard normal density, without the rounding of x^2 for
 * large |x|: x is split into a head h of a few bits and a tail, x^2 = h^2 + (x - h)(x + h) with
 * h^2 exact (the device of Cody's erfc), so phi(-37) keeps 15 digits.
 */
export function normalPdf(x: number): number {
  const head = Math.trunc(x * 16) / 16;
  return (Math.exp(-0.5 * head * head) * Math.exp(-0.5 * (x - head) * (x + head))) / SQRT_2PI;
}

/**
 * Phi(x) - 1/2 for |x| <= SERIES_LIMIT by Marsaglia's series of positive terms
 * phi(x) (x + x^3/3 + x^5/(3·5) + …) (G. Marsaglia, "Evaluating the Normal Distribution", Journal
 * of Statistical Software 11(4), 2004): no cancellation, stopped when a term no longer changes the sum.
 */
function centralSeries(x: number): number {
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= x2 / (2 * n + 1);
    const next = sum + term;
    if (next === sum) break;
    sum = next;
  }
  return normalPdf(x) * sum;
}

/**
 * Phi(-x) for x > SERIES_LIMIT by Laplace's continued fraction of the Mills ratio
 * Phi(-x) = phi(x) / (x + 1/(x + 2/(x + 3/(x + …)))) (Abramowitz and Stegun 26.2.14), evaluated by
 * the modified Lentz method: relative precision however small the tail is.
 */
function lowerTail(x: number): number {
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 1000; k++) {
    d = x + k * d;
    d = d === 0 ? 1 / tiny : 1 / d;
    c = x + k / c;
    if (c === 0) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return normalPdf(x) / f;
}

/**
 * Phi(x), the standard normal CDF: P(Z <= x). Relative precision in the lower tail (Phi(-37) is
 * about 5.7e-300, not 0, to 13 digits or better); in the upper tail 1 - Phi(x) is only as fine as
 * doubles near 1 allow, so ask for Phi(-x) when a small upper probability itself matters.
 * NaN for NaN; 0 and 1 at the infinities.
 */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < -38.5) return 0; // Phi(-38.5) < 1e-324, below the smallest double
  if (x > 8.3) return 1; // 1 - Phi(8.3) < 1e-16, within half an ulp of 1
  if (Math.abs(x) <= SERIES_LIMIT) return 0.5 + centralSeries(x);
  return x < 0 ? lowerTail(-x) : 1 - lowerTail(x);
}

// Peter J. Acklam's rational approximations of the normal quantile (2003; relative error
// below 1.15e-9), the central region and the lower tail.
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

/** Acklam's approximation for 0 < p <= 0.5 (the lower half; the upper half is its mirror). */
function acklamLower(p: number): number {
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) / ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) / (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1)
  );
}

/**
 * Phi^-1(p), the standard normal quantile: the x with Phi(x) = p. Acklam's approximation refined
 * by one Halley step on Phi(x) - p (Phi from `normalCdf` above), which takes its 1e-9 to the precision
 * of doubles. p > 0.5 is answered as -Phi^-1(1 - p) (1 - p is exact there), so both tails keep
 * relative precision. Answers -Infinity at 0, +Infinity at 1 and NaN outside [0, 1].
 */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p > 0.5) return -normalQuantile(1 - p);
  const x = acklamLower(p);
  // Halley: u = (Phi(x) - p) / phi(x); x - u / (1 + x u / 2).
  const e = normalCdf(x) - p;
  const u = e / normalPdf(x);
  return x - u / (1 + 0.5 * x * u);
}
