/*
 * The fill and fee models the matcher takes as parameters (docs/backtest-model.md, "Fills"): a
 * backtest builds them from its request, the paper exchange from its options. Plain numbers, so
 * the guest reads each once when its matcher is made, not on every fill.
 */

/** How far market and stop fills move against the trader. */
export interface FillModel {
  /** Fraction of price: a buy fills higher, a sell lower. Limit fills never slip. */
  slippage: number;
}

/** Fee rates, fractions of a fill's notional (quantity x price). */
export interface FeeModel {
  /** Limit orders and take-profits: the order rested on the book. Negative: a rebate. */
  maker: number;
  /** Market and stop orders, stop-losses, trailing stops, the end of a test. */
  taker: number;
}
