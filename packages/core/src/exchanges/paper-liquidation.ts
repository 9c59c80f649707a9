import { R_LIQUIDATION } from '../engine/model/codes.js';
import { newExitFill, positionExit } from '../engine/model/exit-decision.js';
import type { FeeModel, FillModel } from '../engine/model/fill-fee-models.js';
import type { PaperSymbol } from './paper-account.js';
import type { PaperOrder, PaperState } from './paper-state.js';

/*
 * Liquidation on paper (docs/backtest-model.md, "Positions, margin and liquidation"): a LINEAR
 * position whose price reached its liquidation price (the shared exit decision, with the
 * account's `liquidationPrice`) is closed there: the position is gone and its whole margin lost.
 * The ExchangeGateway port has no liquidation event, so it is kept as a closed order (`filled`,
 * reduce-only, market, no client order id, `fee` = what was left of the margin) that
 * `fetchOrder` answers by its id; `fetchPositions` no longer lists the position and
 * `fetchBalance` has lost the margin.
 */

const LIQUIDATION_REASON = 'liquidation: the loss reached the isolated margin less the maintenance margin';

/**
 * Liquidates the position of `info` if the stretch (`high`, `low`: on paper both the price read)
 * reached its liquidation price, and keeps the closed order that records it. `now` is the
 * record's time (ISO 8601).
 */
export function createPaperLiquidation(state: PaperState, fill: FillModel, fees: FeeModel, now: () => string) {
  const exit = newExitFill();
  return function liquidateIfReached(info: PaperSymbol, high: number, low: number): void {
    const account = state.account;
    const q = account.positionOf(info.symbol);
    if (q === 0) return;
    const level = account.liquidationPriceOf(info.symbol);
    if (level === null) return;
    const dir = q > 0 ? 1 : -1;
    if (positionExit(dir, Number.NaN, high, low, Number.NaN, Number.NaN, level, fill, fees, exit) !== R_LIQUIDATION) return;
    const done = account.liquidateAt(info.symbol, dir > 0 ? low : high);
    if (!done) return;
    const time = now();
    const order: PaperOrder = {
      exchangeOrderId: `paper-${state.nextId++}`,
      clientOrderId: null,
      symbol: info.symbol,
      side: done.side > 0 ? 'buy' : 'sell',
      type: 'market',
      status: 'filled',
      quantity: done.quantity,
      price: null,
      stopPrice: null,
      reduceOnly: true,
      filledQuantity: done.quantity,
      averagePrice: done.price,
      fee: done.fee,
      feeCurrency: info.settle,
      createdAt: time,
      updatedAt: time,
      reason: LIQUIDATION_REASON,
      rested: false,
    };
    state.orders.set(order.exchangeOrderId, order);
  };
}
