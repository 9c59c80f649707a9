import { createHash } from 'node:crypto';
import type { BacktestJob, WireCandles } from './backtest-job.js';

/*
 * The host side of shipping a sweep's candles to the children once: a key naming the candles,
 * and which live child holds which keys (as the children last said).
 */

/** Keys of candle objects already digested, per symbol order. */
const digests = new WeakMap<object, Map<string, string>>();

/**
 * The key of a job's candles in the children's caches: a SHA-256 digest of the symbols and the
 * checked candle columns (`candles`, as `normalizeJob` made them from `job.candles`), computed
 * once per `job.candles` object and symbol order. The candles of one object are read once:
 * different candles must come in a different object, not by changing the arrays in place.
 */
export function candlesKeyOf(job: Pick<BacktestJob, 'candles'>, symbols: readonly string[], candles: readonly WireCandles[]): string {
  const order = JSON.stringify(symbols);
  let known = digests.get(job.candles);
  if (known === undefined) digests.set(job.candles, (known = new Map()));
  let key = known.get(order);
  if (key === undefined) {
    const hash = createHash('sha256').update(order);
    for (const c of candles) {
      for (const column of [c.time, c.open, c.high, c.low, c.close, c.volume]) {
        hash.update(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
      }
    }
    key = hash.digest('base64url');
    known.set(order, key);
  }
  return key;
}

/** Which children (by process id) hold which candle keys, from what they answered. */
export interface CandleHolders {
  /** A child answered that it now holds `keys`. */
  record(pid: number, keys: readonly string[]): void;
  /** Whether a child among `livePids` said it holds `key`; forgets the children not among them. */
  heldByLiveChild(key: string, livePids: readonly number[]): boolean;
}

export function createCandleHolders(): CandleHolders {
  const held = new Map<number, readonly string[]>();
  return {
    record(pid, keys) {
      held.set(pid, keys);
    },
    heldByLiveChild(key, livePids) {
      const live = new Set(livePids);
      let found = false;
      for (const [pid, keys] of held) {
        if (!live.has(pid)) held.delete(pid);
        else if (keys.includes(key)) found = true;
      }
      return found;
    },
  };
}
