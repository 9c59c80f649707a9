import type { IndicatorSpec } from './indicator-kinds.js';

/**
 * A streaming indicator: feed it one closed candle at a time, in time order, and read the value
 * as of that candle. Values are `NaN` until enough candles have been seen.
 */
export interface StreamingIndicator {
  /** Feeds one closed candle and writes the outputs (1, or 3 for Bollinger) into `out`. */
  update(high: number, low: number, close: number, out: Float64Array): void;
  /** Number of outputs. */
  readonly outputs: number;
}

/** Rolling window sum with a periodic exact recompute, so rounding never drifts. */
function createWindow(period: number) {
  const buf = new Float64Array(period);
  let count = 0;
  let head = 0;
  let sum = 0;
  let sumSq = 0;
  let shift = NaN;
  let sinceExact = 0;
  return {
    push(x: number) {
      if (Number.isNaN(shift)) shift = x;
      const v = x - shift;
      if (count === period) {
        const old = buf[head]!;
        sum -= old;
        sumSq -= old * old;
      } else count++;
      buf[head] = v;
      head = (head + 1) % period;
      sum += v;
      sumSq += v * v;
      if (++sinceExact >= 4096) {
        sinceExact = 0;
        sum = 0;
        sumSq = 0;
        for (let i = 0; i < count; i++) {
          const b = buf[i]!;
          sum += b;
          sumSq += b * b;
        }
      }
    },
    get full() {
      return count === period;
    },
    mean() {
      return sum / period + shift;
    },
    /** Population standard deviation of the window. */
    std() {
      const m = sum / period;
      const variance = sumSq / period - m * m;
      return variance > 0 ? Math.sqrt(variance) : 0;
    },
  };
}

/** Simple moving average of closes. */
function createSma(period: number): StreamingIndicator {
  const w = createWindow(period);
  return {
    outputs: 1,
    update(_h, _l, c, out) {
      w.push(c);
      out[0] = w.full ? w.mean() : NaN;
    },
  };
}

/** Exponential moving average of closes, alpha = 2 / (period + 1), seeded with the SMA of the first `period` closes. */
function createEma(period: number): StreamingIndicator {
  const alpha = 2 / (period + 1);
  let n = 0;
  let seedSum = 0;
  let value = NaN;
  return {
    outputs: 1,
    update(_h, _l, c, out) {
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
    update(_h, _l, c, out) {
      if (Number.isNaN(prev)) {
        prev = c;
        out[0] = NaN;
        return;
      }
      const change = c - prev;
      prev = c;
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
    update(h, l, c, out) {
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
function createBollinger(period: number, multiplier: number): StreamingIndicator {
  const w = createWindow(period);
  return {
    outputs: 3,
    update(_h, _l, c, out) {
      w.push(c);
      if (!w.full) {
        out[0] = NaN;
        out[1] = NaN;
        out[2] = NaN;
        return;
      }
      const mid = w.mean();
      const band = multiplier * w.std();
      out[0] = mid + band;
      out[1] = mid;
      out[2] = mid - band;
    },
  };
}

/** Creates the streaming state of one indicator. The spec must be valid (see `indicatorSpecProblem`). */
export function createIndicator(spec: IndicatorSpec): StreamingIndicator {
  switch (spec.kind) {
    case 'sma':
      return createSma(spec.period);
    case 'ema':
      return createEma(spec.period);
    case 'rsi':
      return createRsi(spec.period);
    case 'atr':
      return createAtr(spec.period);
    case 'bollinger':
      return createBollinger(spec.period, spec.multiplier ?? 2);
  }
}
