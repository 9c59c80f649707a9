import { freeze } from './intrinsics.js';

/** An event for the strategy's `onOrder` (docs/strategy-api.md, "Order events"). */
export interface OrderEvent {
  id: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: string;
  status: 'filled' | 'cancelled' | 'rejected';
  quantity: number;
  price: number;
  fee: number;
  time: number;
  reason: string | null;
  tag: string | null;
}

/** Order events of a backtest, queued while the engine fills and delivered to `onOrder` after. */
export interface OrderEventQueue {
  /** Queued events; emptied by `flush`. The array itself never changes. */
  readonly list: OrderEvent[];
  /** Whether `emit` keeps events (the strategy exports `onOrder`): when false, callers may skip building them. */
  readonly enabled: boolean;
  emit(
    id: string,
    symbol: string,
    side: number,
    type: string,
    status: OrderEvent['status'],
    q: number,
    px: number,
    fee: number,
    reason: string | null,
    tag: string | null,
  ): void;
  /** Calls `deliver` with each queued event, in order, then empties the queue. */
  flush(deliver: (event: OrderEvent) => void): void;
}

/** A queue that keeps events only when the strategy exports `onOrder`; `onQueued`, if given, is called after each event is queued. */
export function createOrderEventQueue(enabled: boolean, now: () => number, onQueued: () => void = () => {}): OrderEventQueue {
  const list: OrderEvent[] = [];
  return {
    list,
    enabled,
    emit(id, symbol, side, type, status, q, px, fee, reason, tag) {
      if (!enabled) return;
      list.push(freeze({ id, symbol, side: side > 0 ? 'buy' : 'sell', type, status, quantity: q, price: px, fee, time: now(), reason, tag }));
      onQueued();
    },
    flush(deliver) {
      for (let k = 0; k < list.length; k++) deliver(list[k]!);
      list.length = 0;
    },
  };
}
