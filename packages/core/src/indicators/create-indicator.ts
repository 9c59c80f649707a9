import type { IndicatorSpec } from './indicator-kinds.js';

/**
 * A streaming indicator: feed it one closed candle at a time, in time order, and read the value
 * as of that candle. Values are `NaN` until enough candles have been seen.
 */
export interface StreamingIndicator {
  /**
   * Feeds one closed candle and writes the outputs (as many as the kind's `outputs` in
   * `INDICATOR_DEFS`, in that order) into `out`. `time` is the candle's open time in ms.
   */
  update(high: number, low: number, close: number, volume: number, time: number, out: Float64Array): void;
  /** Number of outputs. */
  readonly outputs: number;
}

/**
 * Rolling window of closes, stored shifted by the first value (so sums of squares keep their
 * precision at large prices), with an exact recompute every 4096 pushes so rounding never drifts.
 */
class RollingWindow {
  private readonly buf: Float64Array;
  private count = 0;
  private head = 0;
  private sum = 0;
  private sumSq = 0;
  private shift = NaN;
  private sinceExact = 0;

  constructor(private readonly period: number) {
    this.buf = new Float64Array(period);
  }

  push(x: number): void {
    if (Number.isNaN(this.shift)) this.shift = x;
    const v = x - this.shift;
    const buf = this.buf;
    if (this.count === this.period) {
      const old = buf[this.head]!;
      this.sum -= old;
      this.sumSq -= old * old;
    } else this.count++;
    buf[this.head] = v;
    this.head = this.head + 1 === this.period ? 0 : this.head + 1;
    this.sum += v;
    this.sumSq += v * v;
    if (++this.sinceExact >= 4096) this.exact();
  }

  private exact(): void {
    this.sinceExact = 0;
    let sum = 0;
    let sumSq = 0;
    for (let i = 0; i < this.count; i++) {
      const b = this.buf[i]!;
      sum += b;
      sumSq += b * b;
    }
    this.sum = sum;
    this.sumSq = sumSq;
  }

  full(): boolean {
    return this.count === this.period;
  }

  mean(): number {
    return this.sum / this.period + this.shift;
  }

  /** Population standard deviation of the window. */
  std(): number {
    const m = this.sum / this.period;
    const variance = this.sumSq / this.period - m * m;
    return variance > 0 ? Math.sqrt(variance) : 0;
  }
}

/** Simple moving average of closes. */
class Sma implements StreamingIndicator {
  readonly outputs = 1;
  private readonly w: RollingWindow;
  constructor(period: number) {
    this.w = new RollingWindow(period);
  }
  update(_h: number, _l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    this.w.push(c);
    out[0] = this.w.full() ? this.w.mean() : NaN;
  }
}

function createSma(period: number): StreamingIndicator {
  return new Sma(period);
}

/** Exponential moving average of closes, alpha = 2 / (period + 1), seeded with the SMA of the first `period` closes. */
function createEma(period: number): StreamingIndicator {
  const alpha = 2 / (period + 1);
  let n = 0;
  let seedSum = 0;
  let value = NaN;
  return {
    outputs: 1,
    update(_h, _l, c, _v, _t, out) {
      n++;
      if (n < period) seedSum += c;
      else if (n === period) value = (seedSum + c) / period;
      else value = value + alpha * (c - value);
      out[0] = value;
    },
  };
}

/** Wilder's RSI: average gain and loss seeded with the mean of the first `period` changes, then smoothed. */
function createRsi(period: number): StreamingIndicator {
  let prev = NaN;
  let n = 0;
  let gain = 0;
  let loss = 0;
  return {
    outputs: 1,
    update(_h, _l, c, _v, _t, out) {
      if (Number.isNaN(prev)) {
        prev = c;
        out[0] = NaN;
        return;
      }
      const change = c - prev;
      prev = c;
      // biome-ignore lint/complexity/useMathMinMax: a NaN change counts as 0 here, where Math.max would give NaN
      const g = change > 0 ? change : 0;
      const l = change < 0 ? -change : 0;
      n++;
      if (n <= period) {
        gain += g / period;
        loss += l / period;
        if (n < period) {
          out[0] = NaN;
          return;
        }
      } else {
        gain = (gain * (period - 1) + g) / period;
        loss = (loss * (period - 1) + l) / period;
      }
      out[0] = loss === 0 ? (gain === 0 ? 50 : 100) : 100 - 100 / (1 + gain / loss);
    },
  };
}

/** Wilder's ATR: true range (high - low on the first candle), mean of the first `period`, then smoothed. */
function createAtr(period: number): StreamingIndicator {
  let prevClose = NaN;
  let n = 0;
  let value = 0;
  return {
    outputs: 1,
    update(h, l, c, _v, _t, out) {
      const tr = Number.isNaN(prevClose) ? h - l : Math.max(h - l, Math.abs(h - prevClose), Math.abs(l - prevClose));
      prevClose = c;
      n++;
      if (n <= period) {
        value += tr / period;
        out[0] = n === period ? value : NaN;
        return;
      }
      value = (value * (period - 1) + tr) / period;
      out[0] = value;
    },
  };
}

/** Bollinger bands: SMA of closes plus and minus `multiplier` population standard deviations. Outputs upper, middle, lower. */
class Bollinger implements StreamingIndicator {
  readonly outputs = 3;
  private readonly w: RollingWindow;
  constructor(
    period: number,
    private readonly multiplier: number,
  ) {
    this.w = new RollingWindow(period);
  }
  update(_h: number, _l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    this.w.push(c);
    if (!this.w.full()) {
      out[0] = NaN;
      out[1] = NaN;
      out[2] = NaN;
      return;
    }
    const mid = this.w.mean();
    const band = this.multiplier * this.w.std();
    out[0] = mid + band;
    out[1] = mid;
    out[2] = mid - band;
  }
}

function createBollinger(period: number, multiplier: number): StreamingIndicator {
  return new Bollinger(period, multiplier);
}

/** Creates the streaming state of one indicator. The spec must be valid (see `indicatorSpecProblem`). */
export function createIndicator(spec: IndicatorSpec): StreamingIndicator {
  const [a, b] = spec.args as number[];
  switch (spec.kind) {
    case 'sma':
      return createSma(a!);
    case 'ema':
      return createEma(a!);
    case 'rsi':
      return createRsi(a!);
    case 'atr':
      return createAtr(a!);
    case 'bollinger':
      return createBollinger(a!, b!);
    default:
      throw new TypeError(`${spec.kind} is not implemented yet`);
  }
}
