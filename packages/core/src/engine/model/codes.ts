/*
 * Numeric codes the engine keeps for order types and fill reasons. The guest runtime writes
 * them into trades as numbers; the host turns them back into names. One table for both sides.
 */

/** Order type codes. */
export const MARKET = 0;
export const LIMIT = 1;
export const STOP = 2;

/** Why a position was reduced or closed, by the code written into a trade. Codes 0-2 are the order types. */
export const EXIT_REASONS = ['market', 'limit', 'stop', 'stopLoss', 'takeProfit', 'liquidation', 'end', 'trailingStop'] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

/** The exits a live deployment turns into a close order when a candle crosses their level. */
export type LiveExitKind = 'stopLoss' | 'takeProfit' | 'trailingStop';

export const R_STOP_LOSS = 3;
export const R_TAKE_PROFIT = 4;
export const R_LIQUIDATION = 5;
export const R_END = 6;
export const R_TRAILING_STOP = 7;

/** Numbers per closed trade in the guest's trade buffer: symbol, direction, entry time, entry price, exit time, exit price, quantity, pnl, fees, reason, funding. */
export const TRADE_FIELDS = 11;

/** Numbers per account change in the guest's state buffer: batch index, symbol, quantity, entry price, cash, realized. */
export const STATE_FIELDS = 6;

/** Most orders a strategy may have open at once, in a backtest and live. */
export const MAX_OPEN_ORDERS = 1000;
