/*
 * Trailing stops (docs/backtest-model.md, "Trailing stops"): a stop that follows the best price
 * since the entry at a fixed distance, in price or as a fraction of the best price, and never
 * moves back. Within a candle the order of prices is unknown, so the level that applies to a
 * candle is the one set by the best price BEFORE it: a candle's own high (long) or low (short)
 * moves the stop only for the following candles.
 */

/** The stop level of a position in direction `dir` (+1 long, -1 short) whose best price is `best`. */
export function trailingStopLevel(dir: number, best: number, distance: number, fraction: number): number {
  if (distance === distance) return dir > 0 ? best - distance : best + distance;
  return dir > 0 ? best * (1 - fraction) : best * (1 + fraction);
}

/** The best price after a candle with `high` and `low`: the highest high of a long, the lowest low of a short. */
export function ratchetBest(dir: number, best: number, high: number, low: number): number {
  if (dir > 0) return high > best ? high : best;
  return low < best ? low : best;
}
