import { R_LIQUIDATION, R_STOP_LOSS, R_TAKE_PROFIT } from './codes.js';
import type { FeeModel, FillModel } from './fill-fee-models.js';
import { limitFillPrice, stopFillPrice } from './fill-prices.js';

/*
 * Which exit of an open position a candle triggers (docs/backtest-model.md, "Fills",
 * "Positions, margin and liquidation"): the stop (a stop-loss, or a trailing stop when nearer),
 * then liquidation, then the take-profit. Within a candle the order of prices is unknown, so the
 * worst comes first: a stop that would fill beyond the liquidation price is a liquidation, and
 * a candle that reaches both the stop and the take-profit exits at the stop.
 */

/** No exit on this candle. */
export const NO_EXIT = -1;

/** Where and at which fee rate the exit decided by `positionExit` fills. */
export interface ExitFill {
  px: number;
  feeRate: number;
}

export function newExitFill(): ExitFill {
  return { px: Number.NaN, feeRate: 0 };
}

/**
 * The exit of a position in direction `dir` (+1 long, -1 short) over a candle from `open`
 * (`high`, `low`): `R_STOP_LOSS` (the stop at `stop` filled; the caller names it a stop-loss or
 * a trailing stop), `R_LIQUIDATION` (at `liquidation`, the liquidation price), `R_TAKE_PROFIT`
 * (the take-profit at `takeProfit` traded through) or `NO_EXIT`. NaN levels are absent. Writes
 * the fill price and fee rate of a stop or take-profit to `out` (a liquidation fills at its
 * price, with the rest of the margin as its fee).
 */
export function positionExit(
  dir: number,
  open: number,
  high: number,
  low: number,
  stop: number,
  takeProfit: number,
  liquidation: number,
  fill: FillModel,
  fees: FeeModel,
  out: ExitFill,
): number {
  const stopFill = stop === stop ? stopFillPrice(-dir, open, high, low, stop, fill.slippage) : stop;
  if (stopFill === stopFill) {
    if (dir > 0 ? stopFill <= liquidation : stopFill >= liquidation) return R_LIQUIDATION;
    out.px = stopFill;
    out.feeRate = fees.taker;
    return R_STOP_LOSS;
  }
  if (dir > 0 ? low <= liquidation : high >= liquidation) return R_LIQUIDATION;
  const tpFill = takeProfit === takeProfit ? limitFillPrice(-dir, open, high, low, takeProfit) : takeProfit;
  if (tpFill !== tpFill) return NO_EXIT;
  out.px = tpFill;
  out.feeRate = fees.maker;
  return R_TAKE_PROFIT;
}
