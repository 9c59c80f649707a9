import { ExponentialAverage } from '../parts/exponential-average.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Macd implements StreamingIndicator {
  readonly outputs = 3;
  private readonly fast: ExponentialAverage;
  private readonly slow: ExponentialAverage;
  private readonly signal: ExponentialAverage;
  constructor(fast: number, slow: number, signal: number) {
    this.fast = new ExponentialAverage(fast);
    this.slow = new ExponentialAverage(slow);
    this.signal = new ExponentialAverage(signal);
  }
  update(_h: number, _l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    const f = this.fast.push(c);
    const s = this.slow.push(c);
    if (Number.isNaN(s)) {
      out[0] = Number.NaN;
      out[1] = Number.NaN;
      out[2] = Number.NaN;
      return;
    }
    const line = f - s;
    const sig = this.signal.push(line);
    out[0] = line;
    out[1] = sig;
    out[2] = line - sig;
  }
}

/**
 * `macd(fast, slow, signal)`: the MACD line EMA(fast) - EMA(slow) of closes (both EMAs seeded
 * with their SMA, like `ema`), from the `slow`-th candle; the signal line, an EMA(signal) of the
 * MACD line seeded with the mean of its first `signal` values; histogram = macd - signal.
 * Outputs macd, signal, histogram, each NaN until it is ready.
 */
export function createMacd(fast: number, slow: number, signal: number): StreamingIndicator {
  return new Macd(fast, slow, signal);
}
