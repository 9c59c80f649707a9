import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { useLiveListKey } from './use-live-list-key.js';
import { OrdersTable } from './orders-table.js';

/** Every order the deployment placed, newest first, 50 a page; following `refresh` (a live order) until the user pages on. */
export function DeploymentOrders({ deploymentId, refresh }: { deploymentId: string; refresh: number }) {
  const client = useClient();
  const live = useLiveListKey(refresh);
  const list = usePagedList(
    `orders:${deploymentId}:${live.key}`,
    (at, signal) => client.deployments.orders({ params: { id: deploymentId }, query: { limit: 50, ...at } }, { signal }),
    (page) => page.orders,
  );
  return (
    <section aria-labelledby="orders-title">
      <div className="page-header">
        <h2 id="orders-title">Order history</h2>
        <button type="button" onClick={live.refresh} disabled={list.loading}>
          Refresh
        </button>
      </div>
      <PagedListView
        list={{ ...list, loadMore: () => live.more(list.loadMore) }}
        errorTitle="Could not load the orders"
        loadingLabel="Loading the orders…"
        moreLabel="Load older orders"
        empty={<EmptyState title="No orders yet">The strategy has placed no order so far.</EmptyState>}
      >
        <OrdersTable orders={list.items} caption="Every order of the deployment, newest first" />
      </PagedListView>
    </section>
  );
}
