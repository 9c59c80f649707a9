import { useState } from 'react';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { ConfirmDialog } from '../ui/confirm-dialog.js';
import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { useAction } from '../ui/use-action.js';
import { useOwnStrategies } from '../strategies/use-own-strategies.js';
import { usePagedList } from '../ui/use-paged-list.js';
import type { Listing } from './listing.js';
import { ListingForm } from './listing-form.js';
import { EMPTY_LISTING, formatPrice, listingFields, listingFormValues, newListingBody } from './listing-values.js';
import { MarketplaceTabs } from './marketplace-tabs.js';
import { Rating } from './rating.js';
import { RecordSummary } from './record-summary.js';

/** The user's listings, each with how its verified record is doing: publish one of their strategies, edit a listing, unlist it (buyers keep their licences). */
export function MyListingsPage() {
  const client = useClient();
  const [version, setVersion] = useState(0);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [unlisting, setUnlisting] = useState<Listing | null>(null);
  const unlistAction = useAction();
  const [notice, setNotice] = useState('');
  const strategies = useOwnStrategies();
  const list = usePagedList(
    `my-listings:${version}`,
    (at, signal) => client.marketplace.myListings({ query: { limit: 50, ...at } }, { signal }),
    (page) => page.listings,
  );
  const changed = (message: string) => {
    setNotice(message);
    setVersion((n) => n + 1);
  };

  async function unlist() {
    if (!unlisting) return;
    await unlistAction.run(async () => {
      await client.marketplace.unlist({ params: { id: unlisting.id } });
      changed(`${unlisting.name} is no longer listed`);
    });
    setUnlisting(null);
  }

  return (
    <section>
      <div className="page-header">
        <h1>My listings</h1>
        {creating ? null : (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New listing
          </button>
        )}
      </div>
      <MarketplaceTabs current="myListings" />
      <output className="notice" aria-live="polite">
        {notice}
      </output>
      <ErrorBanner error={unlistAction.error} title="The listing was not unlisted" />
      {creating ? (
        <section aria-labelledby="new-listing-title">
          <h2 id="new-listing-title">Sell a strategy</h2>
          <ErrorBanner error={strategies.error} title="Could not load your strategies" />
          {strategies.data?.length === 0 ? (
            <EmptyState title="No strategy to sell">
              <p>
                <Link to={{ name: 'newStrategy' }}>Create a strategy</Link> first.
              </p>
            </EmptyState>
          ) : (
            <ListingForm
              initial={EMPTY_LISTING}
              strategies={strategies.data ?? []}
              submitLabel="Publish listing"
              onCancel={() => setCreating(false)}
              onSave={async (values) => {
                const created = await client.marketplace.create({ body: newListingBody(values) });
                setCreating(false);
                changed(`Published ${created.name}`);
              }}
            />
          )}
        </section>
      ) : null}
      <PagedListView
        list={list}
        errorTitle="Could not load your listings"
        loadingLabel="Loading your listings…"
        empty={
          <EmptyState title="Nothing listed">
            <p>List one of your strategies: buyers backtest and deploy it, and never see its source.</p>
          </EmptyState>
        }
      >
        <ul className="my-listings">
          {list.items.map((l) =>
            editing === l.id ? (
              <li key={l.id}>
                <h2>Edit {l.name}</h2>
                <ListingForm
                  initial={listingFormValues(l)}
                  strategies={null}
                  submitLabel="Save listing"
                  onCancel={() => setEditing(null)}
                  onSave={async (values) => {
                    const saved = await client.marketplace.update({ params: { id: l.id }, body: listingFields(values) });
                    setEditing(null);
                    changed(`Saved ${saved.name}`);
                  }}
                />
              </li>
            ) : (
              <li key={l.id} className="card">
                <div className="page-header">
                  <div>
                    <h2>
                      <Link to={{ name: 'listing', id: l.id }}>{l.name}</Link>
                    </h2>
                    <p className="muted small">
                      {formatPrice(l.price)} · <Rating average={l.averageRating} count={l.reviewCount} /> · {l.purchaseCount} bought · version{' '}
                      {l.strategyVersion}
                      {l.tags.length ? ` · ${l.tags.join(', ')}` : ''}
                    </p>
                    <RecordSummary summary={l.record} backtest />
                  </div>
                  <div className="actions">
                    <button type="button" onClick={() => setEditing(l.id)} aria-label={`Edit ${l.name}`}>
                      Edit
                    </button>
                    <button type="button" className="danger" onClick={() => setUnlisting(l)} aria-label={`Unlist ${l.name}`}>
                      Unlist
                    </button>
                  </div>
                </div>
              </li>
            ),
          )}
        </ul>
      </PagedListView>
      <ConfirmDialog
        open={unlisting !== null}
        title={`Unlist ${unlisting?.name ?? ''}?`}
        confirmLabel="Unlist"
        danger
        busy={unlistAction.busy}
        onConfirm={unlist}
        onCancel={() => setUnlisting(null)}
      >
        <p>It leaves the marketplace for good. Those who bought it keep running it.</p>
      </ConfirmDialog>
    </section>
  );
}
