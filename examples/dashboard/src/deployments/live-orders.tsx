import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { OrdersTable } from './orders-table.js';
import type { LiveOrders as LiveOrdersState } from './use-live-orders.js';

/** The orders arriving over the channel while the page is open; a screen reader hears how many. */
export function LiveOrders({ live, active }: { live: LiveOrdersState; active: boolean }) {
  return (
    <section aria-labelledby="live-orders-title" className="live-orders">
      <h2 id="live-orders-title">Live orders</h2>
      <p className="muted small" aria-live="polite">
        {live.orders.length === 0
          ? active
            ? 'Listening: orders appear here the moment the strategy places them.'
            : 'The deployment is not running: no new orders will come.'
          : `${live.orders.length} order update(s) since this page opened.`}
      </p>
      <ErrorBanner error={live.error} title="Live orders stopped; reload the page to follow them again" />
      {live.orders.length > 0 ? (
        <OrdersTable orders={live.orders} caption="Orders placed since this page opened, newest first" />
      ) : active ? null : (
        <EmptyState title="No live orders">The order history below lists every order the deployment placed.</EmptyState>
      )}
    </section>
  );
}
