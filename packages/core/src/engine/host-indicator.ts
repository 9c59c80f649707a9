import { createIndicator } from '../indicators/create-indicator.js';
import { indicatorOutputs, type IndicatorSpec } from '../indicators/indicator-kinds.js';
import { createTimeframeBuckets } from './model/timeframe-buckets.js';

/**
 * One indicator series a strategy registered, computed in the host (trusted code) for a backtest
 * or a live run: fed every closed base candle of its symbol, it keeps in `last` its outputs as of
 * the latest candle. At a higher timeframe it is fed the closed candles of that timeframe only
 * (engine/model/timeframe-buckets.ts), so `last` never holds a value of a candle still forming.
 */
export interface HostIndicator {
  /** The symbol index. */
  readonly s: number;
  readonly outputs: number;
  /** The outputs as of the last candle fed (NaN until ready). */
  readonly last: Float64Array;
  feed(time: number, open: number, high: number, low: number, close: number, volume: number): void;
}

/** A series of `spec` on symbol `s` at a timeframe of `tfMs` over base candles of `baseMs`. The spec must be valid. */
export function createHostIndicator(spec: IndicatorSpec, s: number, tfMs: number, baseMs: number): HostIndicator {
  const state = createIndicator(spec);
  const outputs = indicatorOutputs(spec.kind);
  const last = new Float64Array(outputs).fill(Number.NaN);
  if (tfMs === baseMs) {
    return { s, outputs, last, feed: (t, _o, h, l, c, v) => state.update(h, l, c, v, t, last) };
  }
  const buckets = createTimeframeBuckets(tfMs, baseMs, (t, _o, h, l, c, v) => state.update(h, l, c, v, t, last));
  return { s, outputs, last, feed: (t, o, h, l, c, v) => buckets.push(t, o, h, l, c, v) };
}
