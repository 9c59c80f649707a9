import type { OrderRecord } from '../ports/store.js';
import type { LiveOrderEvent } from './live-session.js';

/**
 * How the strategy hears of an order that ended partly filled (cancelled, by the strategy, the
 * exchange or reconciliation, after some of it filled): as a fill of the quantity that filled,
 * at its average price, so that the stop-loss, take-profit and trailing stop given with the
 * order attach to the position it opened, and every later exit is sized on that quantity (the
 * exits close what the exchange reports as the position). Empty for any other order.
 */
export function partialFill(order: OrderRecord): Partial<LiveOrderEvent> {
  if (order.status !== 'cancelled' || !(order.filledQuantity > 0)) return {};
  return {
    status: 'filled',
    quantity: order.filledQuantity,
    ...(order.averagePrice === null ? {} : { price: order.averagePrice }),
    reason: `partially filled (${order.filledQuantity} of ${order.quantity}), the rest cancelled`,
  };
}
