import { EXIT_REASONS, MAX_OPEN_ORDERS } from '../model/codes.js';
import { createCandleMatcher } from '../model/matcher.js';
import { marginRefusal } from '../model/position.js';
import { NOTHING_TO_REDUCE, reduceOnlyQuantity } from '../model/reduce-only.js';
import type { BacktestAccount } from './backtest-account.js';
import { abs, freeze, INF, NAN, NEG_INF } from './intrinsics.js';
import { marketOrderArgs, newOrderArgs, type OrderArgs, readOrderArgs } from './order-args.js';
import type { OrderEventQueue } from './order-events.js';
import type { OrderJournal } from './order-journal.js';

/**
 * A pending order: its checked options (`readOrderArgs` writes them straight in, nothing is
 * copied) and its place in the run. Records are recycled once filled or cancelled: the strategy
 * only sees snapshots and events.
 */
interface PendingOrder extends OrderArgs {
  id: string;
  s: number;
  side: number;
  closeAll: boolean;
  time: number;
  /** Its entry in the order journal (-1: none). */
  j: number;
}

/** What `ctx.orders()` answers for one order. */
export interface OrderSnapshot {
  id: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: string;
  price: number | null;
  quantity: number | null;
  size: number | null;
  stopLoss: number | null;
  takeProfit: number | null;
  reduceOnly: boolean;
  tag: string | null;
  time: number;
}

/**
 * The pending orders of a backtest: placing, cancelling and listing them, and executing the
 * fills that the shared matcher (engine/model/matcher.ts) decides on each candle: market orders
 * at the open, then the position's exits, then limit and stop orders in the order they were placed.
 */
export function createBacktestOrders(
  cfg: { symbols: string[]; allowShort: boolean; leverage: number; slippage: number; maker: number; taker: number },
  book: BacktestAccount,
  events: OrderEventQueue,
  now: () => number,
  journal: OrderJournal | null = null,
) {
  const nSym = cfg.symbols.length;
  const names = cfg.symbols;
  const { allowShort, leverage: lev, slippage: slip, maker, taker } = cfg;
  const { positions, trailBest, open, exBelow, exAbove, wakeAt, nextFunding } = book;
  /* The account's functions, read once: a property of `book` is a lookup on every use in QuickJS. */
  const { account, equity: equityNow, fill, attachExits } = book;
  /**
   * Pending orders per symbol, in time order; while a symbol has any, the candle loop wakes for
   * it on every candle: `add` sets `book.wakeAt[s]` to -Infinity, and taking the last one sets it
   * back to the next funding time.
   */
  const pending: PendingOrder[][] = [];
  for (let s = 0; s < nSym; s++) pending.push([]);
  let pendingTotal = 0;
  let orderSeq = 0;
  /*
   * Recycled order records: a stack of `freeCount` in `freeOrders`, pushed and popped by index.
   * Arrays here never call push or pop: in QuickJS each is a method looked up on
   * Array.prototype and a native call (about 140 ns, an indexed write about 35 ns); an order
   * did four of them. The stack always holds one: the spare the next order's options are read
   * into (see `add`), so placing an order calls nothing to find it.
   */
  const freeOrders: PendingOrder[] = [newRecord()];
  let freeCount = 1;
  function recycle(o: PendingOrder): void {
    freeOrders[freeCount++] = o;
  }
  function newRecord(): PendingOrder {
    return { ...newOrderArgs(), id: '', s: 0, side: 0, closeAll: false, time: 0, j: -1 };
  }

  /** Read once: without `onOrder`, a fill builds no event (ten arguments are a costly call in QuickJS). */
  const emitting = events.enabled;
  /** Read once, like `emitting`: without a journal, placing and filling an order test this and nothing more. */
  const journaling = journal !== null;

  function orderEvent(o: PendingOrder, status: 'filled' | 'cancelled' | 'rejected', q: number, px: number, fee: number, reason: string | null): void {
    if (emitting) events.emit(o.id, names[o.s]!, o.side, EXIT_REASONS[o.type]!, status, q, px, fee, reason, o.tag);
  }

  /** Places the spare record (`freeOrders[freeCount - 1]`, left in the free list until now), whose options are read. */
  function add(s: number, side: number, closeAll: boolean): string {
    const o = freeOrders[--freeCount]!;
    if (freeCount === 0) recycle(newRecord());
    // Concatenation, not a template: lowered to ES5, a template becomes a call of String.prototype.concat.
    o.id = 'o' + ++orderSeq;
    o.s = s;
    o.side = side;
    o.closeAll = closeAll;
    o.time = now();
    if (journaling) o.j = journal!.placed(orderSeq, o.time, s, side, o.type, o.quantity, o.size, o.price, o.reduceOnly, closeAll, o.tag);
    const list = pending[s]!;
    list[list.length] = o;
    pendingTotal++;
    wakeAt[s] = NEG_INF;
    return o.id;
  }

  /**
   * Removes list[j] (pending orders of symbol s), keeping the others in time order, and recycles
   * it: its fields stay as they are until the next order is placed, which no fill or event does.
   */
  function take(list: PendingOrder[], j: number, s: number): PendingOrder {
    const o = list[j]!;
    const last = list.length - 1;
    for (let k = j; k < last; k++) list[k] = list[k + 1]!;
    list.length = last;
    pendingTotal--;
    if (last === 0) wakeAt[s] = nextFunding[s]!;
    freeOrders[freeCount++] = o; // recycle(o), without the call: every fill passes here.
    return o;
  }

  function reject(o: PendingOrder, status: 'cancelled' | 'rejected', reason: string): void {
    if (journaling) journal!.ended(o.j, status === 'cancelled' ? 2 : 3);
    orderEvent(o, status, 0, NAN, 0, reason);
  }

  /** Fills one order at px (slippage already applied), or rejects or cancels it. */
  function execute(o: PendingOrder, px: number, feeRate: number, t: number): void {
    const s = o.s;
    const p = positions[s]!;
    const cur = p.qty;
    // Not abs(), a native call: the sign of a zero does not matter here (a is compared, or used when cur !== 0).
    const a = cur < 0 ? -cur : cur;
    let q: number;
    /* Equity, when a size order needed it: the margin check reads the same number (nothing changed since) instead of summing it again. */
    let equity = NAN;
    if (o.closeAll) {
      if (cur === 0) return reject(o, 'cancelled', 'no position to close');
      q = a;
    } else if (o.size === o.size) {
      equity = equityNow();
      q = (o.size * equity * lev) / px;
    } else q = o.quantity;
    if (!(q > 0 && q < INF)) return reject(o, 'rejected', `order quantity is not positive: equity is ${equityNow()}`);
    if (o.reduceOnly) {
      q = reduceOnlyQuantity(cur, o.side, q);
      if (q === 0) return reject(o, 'cancelled', NOTHING_TO_REDUCE);
    }
    if (!allowShort && o.side < 0) {
      if (cur <= 0) return reject(o, 'rejected', 'SPOT markets cannot be sold short');
      if (q > a) q = a;
    }
    // A close opens nothing: no margin check (marginRefusal would answer null), one call fewer per close.
    const refusal = o.closeAll ? null : marginRefusal(account, p, o.side, q, px, equity === equity ? equity : equityNow);
    if (refusal !== null) return reject(o, 'rejected', refusal);
    fill(s, o.side, q, px, feeRate, t, o.type);
    if ((o.stopLoss === o.stopLoss || o.takeProfit === o.takeProfit || o.trail !== null) && p.qty !== 0 && p.qty > 0 === o.side > 0) {
      attachExits(s, o.stopLoss, o.takeProfit, o.trail, o.time, px);
    }
    if (emitting) orderEvent(o, 'filled', q, px, q * px * feeRate, null);
    if (journaling) journal!.filled(o.j, t, px, q, q * px * feeRate);
  }

  /** Everything that happens to symbol s's orders and position from the previous close to this candle's close. */
  const processBar = createCandleMatcher<PendingOrder>(
    { pending, positions, open, exBelow, exAbove, trailBest, take, execute, checkExits: book.checkExits, ratchet: book.ratchet },
    { slippage: slip },
    { maker, taker },
  );

  function snapshot(o: PendingOrder): OrderSnapshot {
    const q = positions[o.s]!.qty;
    return freeze({
      id: o.id,
      symbol: names[o.s]!,
      side: o.closeAll ? (q > 0 ? 'sell' : 'buy') : o.side > 0 ? 'buy' : 'sell',
      type: EXIT_REASONS[o.type]!,
      price: o.price === o.price ? o.price : null,
      quantity: o.closeAll ? abs(q) : o.quantity === o.quantity ? o.quantity : null,
      size: o.size === o.size ? o.size : null,
      stopLoss: o.stopLoss === o.stopLoss ? o.stopLoss : null,
      takeProfit: o.takeProfit === o.takeProfit ? o.takeProfit : null,
      reduceOnly: o.reduceOnly,
      tag: o.tag,
      time: o.time,
    });
  }

  return {
    processBar,
    /** `ctx.buy` / `ctx.sell`: the options are checked (a TypeError names the first problem), then the order is placed. */
    place(s: number, side: number, options: unknown): string {
      readOrderArgs(options, freeOrders[freeCount - 1]!);
      if (pendingTotal >= MAX_OPEN_ORDERS) throw new RangeError(`Too many open orders (at most ${MAX_OPEN_ORDERS})`);
      return add(s, side, false);
    },
    /** `ctx.close`: one pending close per symbol; null when flat. */
    close(s: number): string | null {
      const list = pending[s]!;
      for (let j = 0; j < list.length; j++) if (list[j]!.closeAll) return list[j]!.id;
      const q = positions[s]!.qty;
      if (q === 0) return null;
      marketOrderArgs(freeOrders[freeCount - 1]!, true);
      return add(s, q > 0 ? -1 : 1, true);
    },
    cancel(id: unknown): boolean {
      if (typeof id !== 'string') return false;
      for (let s = 0; s < nSym; s++) {
        const list = pending[s]!;
        for (let j = 0; j < list.length; j++) {
          if (list[j]!.id === id) {
            reject(take(list, j, s), 'cancelled', 'cancelled by the strategy');
            return true;
          }
        }
      }
      return false;
    },
    /** Cancels the pending orders of symbol `only` (or of every symbol when -1). */
    cancelAll(only: number): number {
      let n = 0;
      for (let s = 0; s < nSym; s++) {
        if (only >= 0 && s !== only) continue;
        const list = pending[s]!;
        while (list.length) {
          const o = list[list.length - 1]!;
          list.length--;
          pendingTotal--;
          if (list.length === 0) wakeAt[s] = nextFunding[s]!;
          n++;
          reject(o, 'cancelled', 'cancelled by the strategy');
          recycle(o);
        }
      }
      return n;
    },
    /** Snapshots of the pending orders of symbol `only` (or of every symbol when -1). */
    list(only: number): readonly OrderSnapshot[] {
      const out: OrderSnapshot[] = [];
      for (let s = 0; s < nSym; s++) {
        if (only >= 0 && s !== only) continue;
        const list = pending[s]!;
        for (let j = 0; j < list.length; j++) out.push(snapshot(list[j]!));
      }
      return freeze(out);
    },
    /** Drops every pending order (end of the run). */
    clear(): void {
      for (let s = 0; s < nSym; s++) {
        pendingTotal -= pending[s]!.length;
        pending[s]!.length = 0;
        wakeAt[s] = nextFunding[s]!;
      }
    },
  };
}
export type BacktestOrders = ReturnType<typeof createBacktestOrders>;
