/**
 * Higher-timeframe candles built from base candles, the one rule for backtests, live runs and
 * the host's higher-timeframe indicators (docs/strategy-api.md, "Higher timeframes").
 *
 * A bucket of `tfMs` starts at a multiple of `tfMs` since the epoch (UTC: every supported
 * timeframe divides a day). A bucket is closed, and only then visible, when either
 * - the base candle that ends it has closed (`time + baseMs >= start + tfMs`), or
 * - a base candle of a later bucket arrives (the data had a gap at the end of the bucket).
 * So a 4h candle is never seen, even partly, before its last 1h candle has closed.
 */

/** Receives one closed higher-timeframe candle. */
export type ClosedBucket = (time: number, open: number, high: number, low: number, close: number, volume: number) => void;

/** The bucket being formed: `start` is NaN when none is. */
export interface FormingBucket {
  start: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export interface TimeframeBuckets {
  /** Feeds one closed base candle; calls `emit` for each bucket it closes (none, one, or two after a gap). */
  push(time: number, open: number, high: number, low: number, close: number, volume: number): void;
  /** The bucket being formed (read-only view). */
  readonly forming: FormingBucket;
  /** Continues from a bucket formed elsewhere (the host's replay of earlier candles); `start` NaN for none. */
  restore(bucket: FormingBucket): void;
}

/** Aggregates base candles of `baseMs` into candles of `tfMs` (a multiple of `baseMs`). */
export function createTimeframeBuckets(tfMs: number, baseMs: number, emit: ClosedBucket): TimeframeBuckets {
  const f: FormingBucket = { start: Number.NaN, open: 0, high: 0, low: 0, close: 0, volume: 0 };
  const flush = () => {
    emit(f.start, f.open, f.high, f.low, f.close, f.volume);
    f.start = Number.NaN;
  };
  return {
    forming: f,
    restore(b) {
      f.start = b.start;
      f.open = b.open;
      f.high = b.high;
      f.low = b.low;
      f.close = b.close;
      f.volume = b.volume;
    },
    push(time, open, high, low, close, volume) {
      const start = time - (((time % tfMs) + tfMs) % tfMs);
      if (f.start === f.start && f.start !== start) flush();
      if (f.start !== f.start) {
        f.start = start;
        f.open = open;
        f.high = high;
        f.low = low;
        f.close = close;
        f.volume = volume;
      } else {
        if (high > f.high) f.high = high;
        if (low < f.low) f.low = low;
        f.close = close;
        f.volume += volume;
      }
      if (time + baseMs >= start + tfMs) flush();
    },
  };
}
