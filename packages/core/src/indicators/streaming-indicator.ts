/**
 * A streaming indicator: feed it one closed candle at a time, in time order, and read the value
 * as of that candle. Each output is `NaN` until enough candles have been seen for it.
 *
 * Guarantees of every implementation (see `createIndicator`): `update` runs in O(1) time, or
 * amortized O(1), or O(log period) for the mean deviation of a long CCI; it allocates nothing,
 * so a series can be computed over millions of candles; it writes exactly `outputs` numbers,
 * in the order of the kind's `outputs` in `INDICATOR_DEFS`, and never reads `out`, so `out`
 * may be any buffer the caller keeps.
 */
export interface StreamingIndicator {
  /**
   * Feeds one closed candle and writes the outputs (as many as the kind's `outputs` in
   * `INDICATOR_DEFS`, in that order) into `out`. `time` is the candle's open time in ms, UTC.
   */
  update(high: number, low: number, close: number, volume: number, time: number, out: Float64Array): void;
  /** Number of outputs. */
  readonly outputs: number;
}
