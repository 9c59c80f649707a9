import type { StreamingIndicator } from '../streaming-indicator.js';

class Roc implements StreamingIndicator {
  readonly outputs = 1;
  private readonly closes: Float64Array;
  private head = 0;
  private count = 0;
  constructor(private readonly period: number) {
    this.closes = new Float64Array(period);
  }
  update(_h: number, _l: number, c: number, _v: number, _t: number, out: Float64Array): void {
    const old = this.closes[this.head]!;
    out[0] = this.count < this.period || old === 0 ? Number.NaN : (100 * (c - old)) / old;
    this.closes[this.head] = c;
    this.head = this.head + 1 === this.period ? 0 : this.head + 1;
    if (this.count < this.period) this.count++;
  }
}

/**
 * `roc(period)`: rate of change in percent, 100 * (close - close `period` candles ago) / that
 * close; first value on candle `period + 1`; NaN when that close is 0.
 */
export function createRoc(period: number): StreamingIndicator {
  return new Roc(period);
}
