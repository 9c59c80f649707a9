import { DEFAULT_MAX_BACKTEST_TRADES } from '@stratbox/contract';

type Trade = Record<string, unknown>;

const byEntry = (a: Trade, b: Trade) => compare(a.entryTime, b.entryTime) || compare(a.exitTime, b.exitTime);
const compare = (x: unknown, y: unknown) => {
  const a = String(x);
  const b = String(y);
  return a < b ? -1 : a > b ? 1 : 0;
};

/**
 * The trades a run stores: all its trades in chronological order of entry (then exit; equal
 * times keep the engine's order), cut to the first `max`, and how many it made in all.
 * Metrics are not touched: the engine computed them over every trade.
 */
export function tradesToStore(trades: readonly Trade[], max: number = DEFAULT_MAX_BACKTEST_TRADES): { trades: Trade[]; tradeCount: number } {
  const ordered = [...trades].sort(byEntry);
  return { trades: ordered.length > max ? ordered.slice(0, max) : ordered, tradeCount: trades.length };
}

/** Checks a configured cap on stored trades: a whole number, 0 or more. */
export function checkMaxBacktestTrades(max: number): number {
  if (!Number.isSafeInteger(max) || max < 0) throw new RangeError(`maxBacktestTrades must be a whole number >= 0, got ${max}`);
  return max;
}
