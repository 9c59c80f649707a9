import { WilderAverage } from '../parts/wilder-average.js';
import type { StreamingIndicator } from '../streaming-indicator.js';

class Rsi implements StreamingIndicator {
  readonly outputs = 1;
  private readonly gains: WilderAverage;
  private readonly losses: WilderAverage;
  private prev = Number.NaN;
  constructor(period: number) {
    this.gains = new WilderAverage(period);
    this.losses = new WilderAverage(period);
  }
  update(_h: number, _l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    if (Number.isNaN(this.prev)) {
      this.prev = c;
      out[0] = Number.NaN;
      return;
    }
    const change = c - this.prev;
    this.prev = c;
    // biome-ignore lint/complexity/useMathMinMax: a NaN change counts as 0 here, where Math.max would give NaN
    const gain = this.gains.push(change > 0 ? change : 0);
    const loss = this.losses.push(change < 0 ? -change : 0);
    if (Number.isNaN(gain)) out[0] = Number.NaN;
    else out[0] = loss === 0 ? (gain === 0 ? 50 : 100) : 100 - 100 / (1 + gain / loss);
  }
}

/**
 * `rsi(period)`: Wilder's RSI, 0 to 100. Gains and losses of close-to-close changes, each
 * smoothed by Wilder (the mean of the first `period` changes, then `(prev * (period - 1) + x) /
 * period`); first value on candle `period + 1`. No losses: 100; no gains and no losses (flat): 50.
 */
export function createRsi(period: number): StreamingIndicator {
  return new Rsi(period);
}
