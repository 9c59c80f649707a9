import { LIMIT, MARKET } from './codes.js';
import type { FeeModel, FillModel } from './fill-fee-models.js';
import { limitFillPrice, marketFillPrice, stopFillPrice } from './fill-prices.js';

/*
 * The per-candle matcher (docs/backtest-model.md, "What happens on each candle"): which of a
 * symbol's pending orders a candle fills, at which price and fee rate, in which order, and when
 * the position's exits (stop-loss, trailing stop, liquidation, take-profit) are checked. The
 * backtest calls it for each candle inside the sandbox; the paper exchange for the stretch
 * between two price reads (exchanges/paper-matching.ts). Both call this one function, so the two
 * cannot drift apart.
 *
 * It holds no state, reads no clock and does no I/O: the book it is made with holds the orders
 * and the position, and applies what it decides (sizing, margin checks, fills, the exits
 * themselves, which `positionExit` in exit-decision.ts decides). The order of every step is the
 * contract that makes backtests reproducible to the last bit.
 *
 * Shaped for the QuickJS interpreter, where the backtest runs it on every candle with pending
 * orders: everything it uses is read once into closure variables when it is made, orders are
 * walked by index, and an order costs two calls (`take`, `execute`).
 */

/** What the matcher reads of a pending order. */
export interface MatchableOrder {
  /** `MARKET`, `LIMIT` or `STOP` (codes.ts). */
  type: number;
  /** +1 buy, -1 sell. A close-all market order's side is set by the matcher when it fills. */
  side: number;
  /** The limit or stop price (NaN for a market order). */
  price: number;
  /** When it was placed: a candle fills the orders placed before its time. */
  time: number;
  /** A market order closing the whole position, whichever side it is on. */
  closeAll: boolean;
}

/**
 * The orders and positions the matcher works on, by symbol index, and what it calls to act. The
 * arrays are read when the matcher is made, so they must be the book's own (changed in place).
 */
export interface MatcherBook<O extends MatchableOrder> {
  /** Per symbol, the pending orders in the order they were placed. */
  pending: O[][];
  /** Per symbol, the signed position quantity now (read after each fill). */
  positions: ReadonlyArray<{ readonly qty: number }>;
  /** Per symbol, 1 while a position is open. */
  open: ArrayLike<number>;
  /** Per symbol, the prices beyond which an exit may trigger: `checkExits` is called only when a candle reaches one. */
  exBelow: ArrayLike<number>;
  exAbove: ArrayLike<number>;
  /** Per symbol, the best price of a trailing stop (NaN: none): `ratchet` is called only with one. */
  trailBest: ArrayLike<number>;
  /** Removes `list[j]` (symbol `s`'s orders), keeping the others in order, and answers it. The record stays readable until the next order is placed. */
  take(list: O[], j: number, s: number): O;
  /** Fills `o` at `px` (slippage applied) and `feeRate` at time `t`, or cancels or rejects it (sizing, reduce-only, margin). */
  execute(o: O, px: number, feeRate: number, t: number): void;
  /** Checks the position's exits over the candle from `open`; the take-profit only when `allowTakeProfit`. */
  checkExits(s: number, t: number, open: number, high: number, low: number, allowTakeProfit: boolean): void;
  /** After the candle: moves a trailing stop with its high (long) or low (short), for later candles. */
  ratchet(s: number, t: number, high: number, low: number): void;
}

/**
 * Makes the matcher of a book: `(s, t, open, high, low)` settles symbol `s`'s pending orders and
 * position over the candle at time `t`:
 * 1. market orders placed before `t` fill at the open, moved by slippage, taker fee;
 * 2. the position's exits are checked over the candle (when it reaches one of their levels);
 * 3. limit (maker fee) and stop (taker fee, slippage) orders placed before `t`, in the order they
 *    were placed; a position a fill opens or enlarges is checked for its stop and liquidation on
 *    the rest of the candle, from the fill price (its take-profit from the next candle);
 * 4. a trailing stop moves with the candle.
 * An unknown open (NaN; the paper exchange's stretch since a read its orders rested through)
 * fills limit and stop orders at their level.
 */
export function createCandleMatcher<O extends MatchableOrder>(
  book: MatcherBook<O>,
  fill: FillModel,
  fees: FeeModel,
): (s: number, t: number, open: number, high: number, low: number) => void {
  const { pending, positions, open, exBelow, exAbove, trailBest, take, execute, checkExits, ratchet } = book;
  const slip = fill.slippage;
  const maker = fees.maker;
  const taker = fees.taker;

  return function matchCandle(s: number, t: number, o: number, h: number, l: number): void {
    let list = pending[s]!;
    if (list.length !== 0) {
      for (let j = 0; j < list.length; ) {
        const ord = list[j]!;
        if (ord.type === MARKET && ord.time < t) {
          take(list, j, s);
          const side = ord.closeAll ? (positions[s]!.qty > 0 ? -1 : 1) : ord.side;
          ord.side = side;
          execute(ord, marketFillPrice(side, o, slip), taker, t);
        } else j++;
      }
    }
    // The position's exits, only when the candle reaches one of their levels: below them checkExits does nothing.
    if (open[s] !== 0 && (l <= exBelow[s]! || h >= exAbove[s]!)) checkExits(s, t, o, h, l, true);
    list = pending[s]!;
    if (list.length !== 0) {
      for (let j = 0; j < list.length; ) {
        const ord = list[j]!;
        if (ord.type === MARKET || ord.time >= t) {
          j++;
          continue;
        }
        const limit = ord.type === LIMIT;
        const px = limit ? limitFillPrice(ord.side, o, h, l, ord.price) : stopFillPrice(ord.side, o, h, l, ord.price, slip);
        if (px === px) {
          take(list, j, s);
          const before = positions[s]!.qty;
          execute(ord, px, limit ? maker : taker, t);
          const after = positions[s]!.qty;
          // Opened, reversed or enlarged (not abs(): a native call per fill in QuickJS).
          if (after !== 0 && (before === 0 || after > 0 !== before > 0 || (after > 0 ? after > before : after < before))) checkExits(s, t, px, h, l, false);
        } else j++;
      }
    }
    if (trailBest[s] === trailBest[s]) ratchet(s, t, h, l);
  };
}
