import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { formatTime } from '../ui/format.js';
import { Loading } from '../ui/loading.js';
import { useAsync } from '../ui/use-async.js';
import { formatPrice } from './listing-values.js';
import { MarketplaceTabs } from './marketplace-tabs.js';
import { loadBoughtListings } from './use-bought-listings.js';

/** The user's purchases (the first 200), each with what it lets them do: backtest and deploy by listing. */
export function PurchasesPage() {
  const client = useClient();
  const purchases = useAsync('marketplace:purchases', async (signal) => {
    const [page, bought] = await Promise.all([client.marketplace.purchases({ query: { limit: 200 } }, { signal }), loadBoughtListings(client, signal)]);
    const names = new Map(bought.map((b) => [b.listingId, b]));
    return page.purchases.map((p) => ({ ...p, listing: names.get(p.listingId) }));
  });
  const items = purchases.data;
  return (
    <section>
      <h1>My purchases</h1>
      <MarketplaceTabs current="purchases" />
      <ErrorBanner error={purchases.error} title="Could not load your purchases" />
      {!items && purchases.loading ? <Loading label="Loading your purchases…" /> : null}
      {items?.length === 0 ? (
        <EmptyState title="Nothing bought yet">
          <p>
            <Link to={{ name: 'marketplace' }}>Browse the marketplace</Link>: a bought strategy can be backtested and deployed, never read.
          </p>
        </EmptyState>
      ) : null}
      {items?.length ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Listing</th>
                <th scope="col">Bought</th>
                <th scope="col">Price</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.id}>
                  <th scope="row">
                    {p.listing && !p.listing.unlisted ? (
                      <Link to={{ name: 'listing', id: p.listingId }}>{p.listing.name}</Link>
                    ) : (
                      <span>{p.listingId} (unlisted)</span>
                    )}{' '}
                    <span className="muted small">v{p.strategyVersion}</span>
                  </th>
                  <td>{formatTime(p.createdAt)}</td>
                  <td>{formatPrice(p.price)}</td>
                  <td>
                    {p.status}
                    {p.status === 'pending' && p.checkoutUrl ? (
                      <>
                        {' '}
                        · <a href={p.checkoutUrl}>complete the payment</a>
                      </>
                    ) : null}
                  </td>
                  <td>
                    {p.status === 'completed' ? (
                      <span className="actions">
                        <Link to={{ name: 'newBacktest', strategyId: p.listingId }}>Backtest</Link>
                        <Link to={{ name: 'newDeployment', strategyId: p.listingId }}>Deploy</Link>
                      </span>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
