import type { Clock } from '../ports/clock.js';
import { ExchangeGatewayError, type ExchangeGateway, type ExchangeOrder } from '../ports/exchange-gateway.js';
import { OPEN_ORDER_STATUSES, type OrderRecord, type Store } from '../ports/store.js';
import { newId } from '../util/ids.js';
import { clientOrderPrefix, newClientOrderId } from './client-order-id.js';

/*
 * Write-ahead order placement, for the deployment supervisor:
 *
 * 1. `place` inserts the order into the Store as `pending`, under a fresh client order id,
 *    BEFORE anything is sent;
 * 2. it sends the order with that client order id, and records the exchange's answer;
 * 3. after a crash (or an `unknown_outcome`) the order is still `pending` in the Store;
 *    `reconcile` looks it up on the exchange by its client order id and records what it finds.
 *    It never sends the order again, so an order is never placed twice.
 */

export interface PlaceOrderInput {
  userId: string;
  deploymentId: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit' | 'stop';
  quantity: number;
  price?: number;
  stopPrice?: number;
  reduceOnly?: boolean;
}

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
  const now = () => clock.now().toISOString();

  async function record(order: OrderRecord, seen: ExchangeOrder): Promise<OrderRecord> {
    const updated = await store.orders.update(
      order.id,
      {
        exchangeOrderId: seen.exchangeOrderId,
        status: seen.status,
        filledQuantity: seen.filledQuantity,
        averagePrice: seen.averagePrice,
        fee: seen.fee,
        updatedAt: now(),
      },
      { expectedStatus: OPEN_ORDER_STATUSES },
    );
    return updated ?? (await store.orders.findById(order.userId, order.id)) ?? order;
  }

  async function reject(order: OrderRecord): Promise<OrderRecord> {
    return (await store.orders.update(order.id, { status: 'rejected', updatedAt: now() }, { expectedStatus: ['pending'] })) ?? order;
  }

  return {
    record,

    async place(gateway, input) {
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
        if (error instanceof ExchangeGatewayError && error.reason !== 'unknown_outcome') await reject(order);
        throw error;
      }
      return record(order, seen);
    },

    async reconcile(gateway, order, options = {}) {
      if (!(OPEN_ORDER_STATUSES as readonly string[]).includes(order.status)) return order;
      const seen =
        order.status === 'pending' || order.exchangeOrderId === null
          ? await gateway.fetchOrderByClientId(order.clientOrderId, order.symbol, { type: order.type })
          : await gateway.fetchOrder(order.exchangeOrderId, order.symbol, { type: order.type });
      if (seen) return record(order, seen);
      const age = clock.now().getTime() - Date.parse(order.createdAt);
      return age >= (options.giveUpAfterMs ?? DEFAULT_GIVE_UP_MS) ? reject(order) : order;
    },
  };
}
