/*
 * Where an order fills on a candle, by its type (docs/backtest-model.md, "Fills"). `side` is +1
 * for a buy and -1 for a sell; `slippage` moves market and stop fills against the trader. Each
 * function answers NaN when the candle does not fill the order. The backtest applies them to
 * every candle, the paper exchange to the stretch between two price reads, and a position's
 * stop-loss and take-profit are a stop and a limit order on the closing side.
 */

/* Read once: in the sandbox (QuickJS, no inline caches) `Number.NaN` costs two lookups per use. */
const NAN = Number.NaN;

/** A market order fills at the open, moved against the trader. */
export function marketFillPrice(side: number, open: number, slippage: number): number {
  return open * (1 + side * slippage);
}

/** A limit order fills when the price trades through it: at the limit, or at the open if the candle opens beyond it. */
export function limitFillPrice(side: number, open: number, high: number, low: number, limit: number): number {
  if (side > 0) return low < limit ? (open < limit ? open : limit) : NAN;
  return high > limit ? (open > limit ? open : limit) : NAN;
}

/** A stop order fills when the price touches it: at the stop, or at the open if the candle gaps past it, moved by slippage. */
export function stopFillPrice(side: number, open: number, high: number, low: number, stop: number, slippage: number): number {
  if (side > 0) return high >= stop ? (open > stop ? open : stop) * (1 + slippage) : NAN;
  return low <= stop ? (open < stop ? open : stop) * (1 - slippage) : NAN;
}
