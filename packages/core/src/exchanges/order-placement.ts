import { createOrderRecords, type NewOrderInput } from '../deployments/order-records.js';
import type { Clock } from '../ports/clock.js';
import { ExchangeGatewayError, type ExchangeGateway, type ExchangeOrder } from '../ports/exchange-gateway.js';
import { OPEN_ORDER_STATUSES, type OrderRecord, type Store } from '../ports/store.js';

/*
 * Write-ahead order placement, for the deployment supervisor:
 *
 * 1. `place` inserts the order into the Store as `pending`, under a fresh client order id,
 *    BEFORE anything is sent;
 * 2. it sends the order with that client order id, and records the exchange's answer;
 * 3. after a crash (or an `unknown_outcome`) the order is still `pending` in the Store;
 *    `reconcile` looks it up on the exchange by its client order id and records what it finds.
 *    It never sends the order again, so an order is never placed twice.
 *
 * This file decides and sends; the Store writes are the deployment's order records
 * (deployments/order-records.ts).
 */

export type PlaceOrderInput = NewOrderInput;

export interface OrderPlacement {
  /**
   * Writes the order as `pending`, sends it, and returns the record as the exchange answered.
   * A refusal (insufficient funds, invalid order, rate limit that outlasted the retries) marks
   * it `rejected` and is rethrown; an unknown outcome (or an unexpected error) leaves it
   * `pending` for `reconcile` and is rethrown.
   */
  place(gateway: ExchangeGateway, input: PlaceOrderInput): Promise<OrderRecord>;
  /**
   * Brings an order in an open status up to date from the exchange, by its client order id for a
   * `pending` one (never sending it). A `pending` order the exchange does not know is marked
   * `rejected` once it is older than `giveUpAfterMs` (default 5 minutes), else left pending.
   */
  reconcile(gateway: ExchangeGateway, order: OrderRecord, options?: { giveUpAfterMs?: number }): Promise<OrderRecord>;
  /** Records the exchange's view of an order; a final status (filled, cancelled, rejected) is never overwritten. */
  record(order: OrderRecord, seen: ExchangeOrder): Promise<OrderRecord>;
}

const DEFAULT_GIVE_UP_MS = 5 * 60_000;

export function createOrderPlacement({ store, clock }: { store: Store; clock: Clock }): OrderPlacement {
  const records = createOrderRecords({ store, clock });

  return {
    record: records.recordSeen,

    async place(gateway, input) {
      const order = await records.insertPending(input);
      let seen: ExchangeOrder;
      try {
        seen = await gateway.createOrder({
          clientOrderId: order.clientOrderId,
          symbol: input.symbol,
          side: input.side,
          type: input.type,
          quantity: input.quantity,
          ...(input.type === 'limit' && input.price !== undefined ? { price: input.price } : {}),
          ...(input.type === 'stop' && input.stopPrice !== undefined ? { stopPrice: input.stopPrice } : {}),
          ...(input.reduceOnly ? { reduceOnly: true } : {}),
        });
      } catch (error) {
        // A gateway refusal certainly did not place it; `unknown_outcome` (or anything unexpected)
        // may have: leave it pending for `reconcile`.
        if (error instanceof ExchangeGatewayError && error.reason !== 'unknown_outcome') await records.markRejected(order);
        throw error;
      }
      return records.recordSeen(order, seen);
    },

    async reconcile(gateway, order, options = {}) {
      if (!(OPEN_ORDER_STATUSES as readonly string[]).includes(order.status)) return order;
      const seen =
        order.status === 'pending' || order.exchangeOrderId === null
          ? await gateway.fetchOrderByClientId(order.clientOrderId, order.symbol, { type: order.type })
          : await gateway.fetchOrder(order.exchangeOrderId, order.symbol, { type: order.type });
      if (seen) return records.recordSeen(order, seen);
      const age = clock.now().getTime() - Date.parse(order.createdAt);
      return age >= (options.giveUpAfterMs ?? DEFAULT_GIVE_UP_MS) ? records.markRejected(order) : order;
    },
  };
}
