import type { LiveExitKind } from '../model/codes.js';

/*
 * The data a live deployment's host and its guest runtime exchange as JSON on every call: the
 * account as the exchange and the Store say it is, and the intents the strategy made.
 */

/** An open position, as the strategy sees it through `ctx.position`. */
export interface LivePositionState {
  symbol: string;
  side: 'long' | 'short';
  quantity: number;
  entryPrice: number | null;
  entryTime: number | null;
  margin: number | null;
  liquidationPrice: number | null;
  unrealizedPnl: number | null;
}

/** An open order, with the id the strategy knows it by. */
export interface LiveOrderState {
  id: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit' | 'stop';
  price: number | null;
  quantity: number | null;
  size: number | null;
  stopLoss: number | null;
  takeProfit: number | null;
  reduceOnly: boolean;
  closeAll: boolean;
  tag: string | null;
  time: number;
}

/** The account as the strategy sees it through `ctx` (from the exchange and the Store). */
export interface LiveAccountState {
  cash: number;
  equity: number;
  positions: LivePositionState[];
  orders: LiveOrderState[];
}

/** What the strategy asked for during one call. */
export type LiveIntent =
  | {
      kind: 'place';
      order: LiveOrderState & {
        /** Set on a close made for a crossed stop-loss, take-profit or trailing stop. */
        exit?: LiveExitKind | null;
      };
    }
  | { kind: 'cancel'; id: string };
