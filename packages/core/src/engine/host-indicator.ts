import { createIndicator } from '../indicators/create-indicator.js';
import { INDICATOR_DEFS, INDICATOR_KINDS, indicatorOutputs, indicatorSpecProblem, type IndicatorSpec } from '../indicators/indicator-kinds.js';
import type { StreamingIndicator } from '../indicators/streaming-indicator.js';
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
  /** At the base timeframe, the indicator `feed` updates: callers on a hot path may update it directly (into `last`). */
  readonly direct: StreamingIndicator | null;
}

/** A series of `spec` on symbol `s` at a timeframe of `tfMs` over base candles of `baseMs`. The spec must be valid. */
export function createHostIndicator(spec: IndicatorSpec, s: number, tfMs: number, baseMs: number): HostIndicator {
  const state = createIndicator(spec);
  const outputs = indicatorOutputs(spec.kind);
  const last = new Float64Array(outputs).fill(Number.NaN);
  if (tfMs === baseMs) {
    return { s, outputs, last, feed: (t, _o, h, l, c, v) => state.update(h, l, c, v, t, last), direct: state };
  }
  const buckets = createTimeframeBuckets(tfMs, baseMs, (t, _o, h, l, c, v) => state.update(h, l, c, v, t, last));
  return { s, outputs, last, feed: (t, o, h, l, c, v) => buckets.push(t, o, h, l, c, v), direct: null };
}

/**
 * The spec the guest asked for by kind code and up to three arguments (NaN past the kind's
 * count), checked as `indicatorSpecProblem` does; a string says why it cannot be.
 */
export function guestIndicatorSpec(code: number, a0: number, a1: number, a2: number): IndicatorSpec | string {
  const kind = INDICATOR_KINDS[code];
  if (kind === undefined) return 'unknown indicator';
  const spec = { kind, args: [a0, a1, a2].slice(0, INDICATOR_DEFS[kind].params.length) };
  return indicatorSpecProblem(spec) ?? spec;
}
