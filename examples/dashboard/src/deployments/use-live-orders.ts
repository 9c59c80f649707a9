import { useEffect, useRef, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { describeError, type ErrorView } from '../ui/describe-error.js';
import type { Order } from './orders-table.js';

export interface LiveOrders {
  /** Orders seen on the channel since the page opened, latest state of each, the newest first. */
  orders: Order[];
  /** The subscription was refused or the connection lost for good. */
  error: ErrorView | null;
}

/**
 * A deployment's order updates as they happen (`deployment:<id>:orders`; the client reconnects
 * and re-subscribes by itself). An update of an order already shown replaces it in place;
 * `onOrder` is called on every event (to refresh positions and P&L).
 */
export function useLiveOrders(deploymentId: string, onOrder: (order: Order) => void): LiveOrders {
  const client = useClient();
  const [state, setState] = useState<LiveOrders>({ orders: [], error: null });
  const callback = useRef(onOrder);
  callback.current = onOrder;
  useEffect(
    () =>
      client.deployments.watchOrders(
        deploymentId,
        ({ order }) => {
          setState((s) => {
            const known = s.orders.some((o) => o.id === order.id);
            return { error: null, orders: known ? s.orders.map((o) => (o.id === order.id ? order : o)) : [order, ...s.orders] };
          });
          callback.current(order);
        },
        { onError: (error) => setState((s) => ({ ...s, error: describeError(error) })) },
      ),
    [client, deploymentId],
  );
  return state;
}
