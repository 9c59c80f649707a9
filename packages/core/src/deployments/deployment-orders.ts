import type { ListPosition, OrderRecord, StoreRepositories } from '../ports/store.js';

/** Orders read per page. */
const PAGE = 500;

/**
 * Every order of the user's deployment, newest first (as `orders.listByDeployment` pages them),
 * read page by page to the end; empty when the deployment is not the user's.
 */
export async function listDeploymentOrders(repos: Pick<StoreRepositories, 'orders'>, userId: string, deploymentId: string): Promise<OrderRecord[]> {
  const all: OrderRecord[] = [];
  for (let after: ListPosition | undefined; ; ) {
    const page = await repos.orders.listByDeployment(userId, deploymentId, after ? { limit: PAGE, after } : { limit: PAGE });
    all.push(...page);
    const last = page[page.length - 1];
    if (page.length < PAGE || !last) return all;
    after = { createdAt: last.createdAt, id: last.id };
  }
}
