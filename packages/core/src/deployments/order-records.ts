import type { Clock } from '../ports/clock.js';
import type { ExchangeOrder } from '../ports/exchange-gateway.js';
import { OPEN_ORDER_STATUSES, type OrderRecord, type Store } from '../ports/store.js';
import { newId } from '../util/ids.js';
import { clientOrderPrefix, newClientOrderId } from '../exchanges/client-order-id.js';
import { recordOrderFilled } from './deployment-events.js';

/*
 * A deployment's order records in the Store, as write-ahead placement keeps them: an order is
 * written `pending` under a fresh client order id (carrying its deployment's prefix) before it is sent, then takes the exchange's
 * view of it (`open`, `partially_filled`, a final status) or is marked `rejected` when the
 * exchange certainly did not place it. A final status is never overwritten.
 */

/** An order a deployment is about to send. */
export interface NewOrderInput {
  userId: string;
  deploymentId: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit' | 'stop';
  quantity: number;
  /** Kept for a limit order only. */
  price?: number;
  /** Kept for a stop order only. */
  stopPrice?: number;
  reduceOnly?: boolean;
}

export interface OrderRecords {
  /** Inserts the order as `pending` under a fresh client order id (nothing is sent yet); returns the record. */
  insertPending(input: NewOrderInput): Promise<OrderRecord>;
  /**
   * Records the exchange's view of an order (exchange id, status, filled quantity, average price,
   * fee) while it is in an open status; a final status is never overwritten. The update that
   * fills it writes `deployment.order.filled` in the same transaction. Returns the record as
   * stored afterwards.
   */
  recordSeen(order: OrderRecord, seen: ExchangeOrder): Promise<OrderRecord>;
  /** Marks a `pending` order `rejected` (the exchange refused it, or never saw it); any other status is left as it is. */
  markRejected(order: OrderRecord): Promise<OrderRecord>;
}

export function createOrderRecords({ store, clock }: { store: Store; clock: Clock }): OrderRecords {
  const now = () => clock.now().toISOString();
  return {
    async insertPending(input) {
      const time = now();
      const order: OrderRecord = {
        id: newId('order'),
        userId: input.userId,
        deploymentId: input.deploymentId,
        clientOrderId: newClientOrderId(clientOrderPrefix(input.deploymentId)),
        exchangeOrderId: null,
        symbol: input.symbol,
        side: input.side,
        type: input.type,
        quantity: input.quantity,
        price: input.type === 'limit' ? (input.price ?? null) : null,
        stopPrice: input.type === 'stop' ? (input.stopPrice ?? null) : null,
        reduceOnly: input.reduceOnly === true,
        status: 'pending',
        filledQuantity: 0,
        averagePrice: null,
        fee: 0,
        createdAt: time,
        updatedAt: time,
      };
      await store.orders.insert(order);
      return order;
    },

    async recordSeen(order, seen) {
      const patch = {
        exchangeOrderId: seen.exchangeOrderId,
        status: seen.status,
        filledQuantity: seen.filledQuantity,
        averagePrice: seen.averagePrice,
        fee: seen.fee,
        updatedAt: now(),
      };
      const updated =
        seen.status === 'filled'
          ? // Only the update that moves it from an open status to filled (the compare-and-set) tells the owner.
            await store.transaction(async (tx) => {
              const after = await tx.orders.update(order.id, patch, { expectedStatus: OPEN_ORDER_STATUSES });
              if (after) await recordOrderFilled(tx, after);
              return after;
            })
          : await store.orders.update(order.id, patch, { expectedStatus: OPEN_ORDER_STATUSES });
      return updated ?? (await store.orders.findById(order.userId, order.id)) ?? order;
    },

    async markRejected(order) {
      return (await store.orders.update(order.id, { status: 'rejected', updatedAt: now() }, { expectedStatus: ['pending'] })) ?? order;
    },
  };
}
