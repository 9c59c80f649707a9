import { RollingMeanDeviation } from '../parts/rolling-mean-deviation.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Cci implements StreamingIndicator {
  readonly outputs = 1;
  private readonly w: RollingMeanDeviation;
  constructor(period: number) {
    this.w = new RollingMeanDeviation(period);
  }
  update(h: number, l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    const tp = (h + l + c) / 3;
    const w = this.w;
    w.push(tp);
    if (!w.full()) out[0] = Number.NaN;
    else out[0] = w.meanDeviation === 0 ? 0 : (tp - w.mean) / (0.015 * w.meanDeviation);
  }
}

/**
 * `cci(period)`: Lambert's commodity channel index. Typical price tp = (high + low + close) / 3;
 * CCI = (tp - SMA(tp)) / (0.015 * mean absolute deviation of tp from that SMA), over the last
 * `period` candles; 0 when every typical price of the window is the same (no deviation, where a
 * plain division gives NaN). First value on the `period`-th candle. See `RollingMeanDeviation`
 * for the cost per candle.
 */
export function createCci(period: number): StreamingIndicator {
  return new Cci(period);
}
