import type { WireCandles } from './backtest-job.js';

/** The candles a child keeps for later `runTrials` calls: a few sets by key, the least recently used dropped first. */
export interface TrialCandleCache {
  /** The candles of `key`, now the most recently used, or undefined. */
  get(key: string): WireCandles[] | undefined;
  /** Keeps `candles` as `key`'s, then drops the least recently used sets past the limits (this one too if it alone is past the byte limit). */
  put(key: string, candles: WireCandles[]): void;
  /** The keys held, least recently used first. */
  keys(): string[];
}

/** Bytes of a set of candles: six Float64Array columns per symbol. */
export function candleBytes(candles: readonly WireCandles[]): number {
  let bytes = 0;
  for (const c of candles) bytes += c.time.byteLength + c.open.byteLength + c.high.byteLength + c.low.byteLength + c.close.byteLength + c.volume.byteLength;
  return bytes;
}

/**
 * Creates a child's candle cache holding at most `maxEntries` sets of at most `maxBytes` together:
 * a child of a sweep sliced into many `runTrials` calls receives each set of candles once, and
 * never holds more than the limits after a call.
 */
export function createTrialCandleCache(limits: { maxEntries: number; maxBytes: number }): TrialCandleCache {
  const entries = new Map<string, { candles: WireCandles[]; bytes: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.candles;
    },
    put(key, candles) {
      entries.delete(key);
      entries.set(key, { candles, bytes: candleBytes(candles) });
      let total = 0;
      for (const entry of entries.values()) total += entry.bytes;
      for (const [oldest, entry] of entries) {
        if (entries.size <= limits.maxEntries && total <= limits.maxBytes) break;
        entries.delete(oldest);
        total -= entry.bytes;
      }
    },
    keys: () => [...entries.keys()],
  };
}
