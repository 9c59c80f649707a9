import type { OrderRecord, StoreRepositories } from '../ports/store.js';
import { listDeploymentOrders } from '../deployments/deployment-orders.js';
import type { LiveFill } from './drift-types.js';

/** Every order of the user's deployment, oldest first. */
export async function listAllOrders(repos: Pick<StoreRepositories, 'orders'>, userId: string, deploymentId: string): Promise<OrderRecord[]> {
  return (await listDeploymentOrders(repos, userId, deploymentId)).reverse();
}

/**
 * The live fills of a deployment: each of its orders that filled at least in part, at its
 * average price, with its fee, at the time of its last change. `guestId` (the strategy's id for
 * the order) is null: the Store does not link an order to the intent it was placed for (the
 * runner keeps that link in memory only), so the comparison pairs fills by symbol, side and time.
 */
export function liveFillsOf(orders: readonly OrderRecord[]): LiveFill[] {
  return orders
    .filter((o) => o.filledQuantity > 0 && o.averagePrice !== null)
    .map((o) => ({
      orderId: o.id,
      guestId: null,
      symbol: o.symbol,
      side: o.side,
      quantity: o.filledQuantity,
      price: o.averagePrice!,
      fee: o.fee,
      time: Date.parse(o.updatedAt),
    }));
}
