import type { ExchangeOrder } from '../ports/exchange-gateway.js';
import type { PaperAccount, PaperAccountState, PaperSymbol } from './paper-account.js';

/*
 * What a paper account holds besides its money: its orders (every open one and the newest
 * closed ones), the symbols it has seen, the last prices read and the funding step. One mutable
 * record the gateway's parts (matching, funding, persistence) share; a restore replaces its
 * contents in place, so every part sees the restored account.
 */

/** An order as the paper exchange keeps it. */
export interface PaperOrder extends ExchangeOrder {
  /** Why it was cancelled or rejected, if it was. */
  reason: string | null;
  /** Whether it rested through an earlier price read (so later reads are candles it saw whole). */
  rested: boolean;
}

export interface PaperState {
  account: PaperAccount;
  orders: Map<string, PaperOrder>;
  byClientId: Map<string, string>;
  known: Map<string, PaperSymbol>;
  /** The last price read of each symbol. */
  marks: Map<string, number>;
  nextId: number;
  /**
   * Funding events up to this time (epoch ms) are settled for the open positions; null when no
   * position is open.
   */
  fundingUpTo: number | null;
  /** Time of this object's previous funding step: where the stretch of the current read began (not saved). */
  lastSettle: number | null;
}

/** The saved form of a paper account. */
interface SavedPaperState {
  account: PaperAccountState;
  orders: PaperOrder[];
  nextId: number;
  known: PaperSymbol[];
  marks: Array<[string, number]>;
  /** Missing in states saved before funding: then from the first call on. */
  fundingUpTo?: number | null;
}

/** Closed orders kept (and answered by `fetchOrder`) besides every open one. */
const KEEP_CLOSED_ORDERS = 200;

/** A fresh account with no orders, or `account` continued from a saved state. */
export function newPaperState(account: PaperAccount): PaperState {
  return { account, orders: new Map(), byClientId: new Map(), known: new Map(), marks: new Map(), nextId: 1, fundingUpTo: null, lastSettle: null };
}

/** Forgets all but the newest `KEEP_CLOSED_ORDERS` closed orders. */
export function prunePaperOrders(state: PaperState): void {
  const closed = [...state.orders.values()].filter((o) => o.status !== 'open');
  for (const o of closed.slice(0, Math.max(0, closed.length - KEEP_CLOSED_ORDERS))) {
    state.orders.delete(o.exchangeOrderId);
    if (o.clientOrderId !== null) state.byClientId.delete(o.clientOrderId);
  }
}

/**
 * The saved form of the account. Prices seen are left out: they change at every read, and
 * saving them would write the account on every call; after a restore they are read again.
 */
export function paperStateText(state: PaperState): string {
  const saved: SavedPaperState = {
    account: { ...state.account.state(), lastMarks: [] },
    orders: [...state.orders.values()],
    nextId: state.nextId,
    known: [...state.known.values()],
    marks: [],
    fundingUpTo: state.fundingUpTo,
  };
  return JSON.stringify(saved);
}

/** Replaces `state`'s contents with a saved state; `newAccount` continues the account from its saved money. */
export function restorePaperState(state: PaperState, text: string, newAccount: (saved: PaperAccountState) => PaperAccount): void {
  const saved = JSON.parse(text) as SavedPaperState;
  state.account = newAccount(saved.account);
  state.orders = new Map(saved.orders.map((o) => [o.exchangeOrderId, o]));
  state.byClientId = new Map(saved.orders.flatMap((o) => (o.clientOrderId === null ? [] : [[o.clientOrderId, o.exchangeOrderId] as const])));
  state.nextId = saved.nextId;
  state.known = new Map(saved.known.map((s) => [s.symbol, s]));
  state.marks = new Map(saved.marks);
  state.fundingUpTo = saved.fundingUpTo ?? null;
  // Another process may have read since: the stretch of the next read starts at that read.
  state.lastSettle = null;
}

/** Replaces `state`'s contents with a fresh account's. */
export function resetPaperState(state: PaperState, account: PaperAccount): void {
  Object.assign(state, newPaperState(account));
}
