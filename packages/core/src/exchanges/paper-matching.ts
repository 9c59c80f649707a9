import { LIMIT, MARKET, STOP } from '../engine/model/codes.js';
import type { FeeModel, FillModel } from '../engine/model/fill-fee-models.js';
import { createCandleMatcher, type MatchableOrder } from '../engine/model/matcher.js';
import { NOTHING_TO_REDUCE, reduceOnlyQuantity } from '../engine/model/reduce-only.js';
import type { PaperSymbol } from './paper-account.js';
import { createPaperLiquidation } from './paper-liquidation.js';
import type { PaperOrder, PaperState } from './paper-state.js';

/*
 * Matching on paper: the backtest's matcher (engine/model/matcher.ts), the stretch between two
 * price reads of a symbol being its candle. It opens at the earlier price and ends at the later
 * one, passing every price between, so a read settles it in the order a backtest settles a
 * candle: liquidation, then resting limit and stop orders, oldest first, each fill that opens or
 * enlarges the position followed by the liquidation check at the read.
 * - market: at the price read when the order arrives, moved against the trader by slippage,
 *   taker fee;
 * - limit: when the price trades through the limit (a buy when the price is strictly below it,
 *   a sell strictly above), maker fee; at the limit for a resting order (the price passed it),
 *   at the price read if the order could fill at once when placed (the better of the two);
 * - stop (stop-market): when the price reaches the stop (a buy at or above, a sell at or below),
 *   taker fee; at the stop moved by slippage for a resting order, at the worse of the stop and
 *   the price read (moved by slippage) if it triggered at once when placed;
 * - reduce-only: cut to the position's size; cancelled if there is no position to reduce;
 * - an order whose fill the account cannot pay is rejected when it triggers.
 * An order placed now has no earlier price: its candle is the price read at placement alone. A
 * resting order did not fill at the previous read, so its stretch opened beyond its level, on the
 * side where it does not fill: the matcher is given an unknown open, and fills it at its level.
 */

/** A paper order as the matcher sees it. */
interface Matchable extends MatchableOrder {
  order: PaperOrder;
}

const TYPE_CODES = { market: MARKET, limit: LIMIT, stop: STOP } as const;

export interface PaperMatching {
  /** Settles the stretch of `info` that ends at the price read: liquidation, then its resting orders. */
  settle(info: PaperSymbol, price: number): void;
  /** Matches an order just placed against the price read at placement; it rests if it does not fill. */
  matchNew(order: PaperOrder, info: PaperSymbol, price: number): void;
}

export function createPaperMatching(state: PaperState, fill: FillModel, fees: FeeModel, clock: { nowIso(): string; nowMs(): number }): PaperMatching {
  const liquidateIfReached = createPaperLiquidation(state, fill, fees, clock.nowIso);
  /** The symbol being matched and the price read: the matcher's book holds one symbol at a time. */
  let current: PaperSymbol = { symbol: '', base: '', quote: '', settle: null };
  let read = 0;
  const list: Matchable[] = [];
  const position = {
    get qty() {
      return state.account.positionOf(current.symbol);
    },
  };
  const open = {
    length: 1,
    get 0() {
      return state.account.positionOf(current.symbol) !== 0 ? 1 : 0;
    },
  };

  function execute(m: Matchable, px: number, feeRate: number): void {
    const order = m.order;
    let quantity = order.quantity;
    if (order.reduceOnly) {
      quantity = reduceOnlyQuantity(state.account.positionOf(order.symbol), m.side, quantity);
      if (quantity === 0) {
        Object.assign(order, { status: 'cancelled', reason: NOTHING_TO_REDUCE, updatedAt: clock.nowIso() });
        return;
      }
    }
    const side = m.side > 0 ? 1 : -1;
    const refusal = state.account.refusal(current, side, quantity, px, feeRate, state.marks);
    if (refusal) {
      Object.assign(order, { status: 'rejected', reason: refusal, updatedAt: clock.nowIso() });
      return;
    }
    const fee = state.account.fill(current, side, quantity, px, feeRate, clock.nowMs());
    Object.assign(order, { status: 'filled', filledQuantity: quantity, averagePrice: px, fee, updatedAt: clock.nowIso() });
  }

  const matchCandle = createCandleMatcher<Matchable>(
    {
      pending: [list],
      positions: [position],
      open,
      // Every read may reach the liquidation price: the exits are always checked.
      exBelow: [Number.POSITIVE_INFINITY],
      exAbove: [Number.NEGATIVE_INFINITY],
      trailBest: [Number.NaN],
      take(from, j) {
        return from.splice(j, 1)[0]!;
      },
      execute,
      checkExits: () => liquidateIfReached(current, read, read),
      ratchet() {},
    },
    fill,
    fees,
  );

  /** The orders, in the order they were placed, as one candle: `open` NaN for orders that rested through the previous read. */
  function run(info: PaperSymbol, price: number, orders: PaperOrder[], open: number): void {
    current = info;
    read = price;
    list.length = 0;
    for (const order of orders) {
      const type = TYPE_CODES[order.type];
      list.push({
        order,
        type,
        side: order.side === 'buy' ? 1 : -1,
        price: type === LIMIT ? order.price! : type === STOP ? order.stopPrice! : Number.NaN,
        time: 0,
        closeAll: false,
      });
    }
    // Every paper order was placed before the read that matches it: time 0, the candle at 1.
    matchCandle(0, 1, open, price, price);
    for (const m of list) m.order.rested = true;
    list.length = 0;
  }

  return {
    settle(info, price) {
      const resting = [...state.orders.values()].filter((o) => o.status === 'open' && o.symbol === info.symbol);
      run(info, price, resting, Number.NaN);
    },
    matchNew(order, info, price) {
      run(info, price, [order], price);
    },
  };
}
