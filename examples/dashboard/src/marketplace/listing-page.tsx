import { useState } from 'react';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { formatTime } from '../ui/format.js';
import { Loading } from '../ui/loading.js';
import { RecordPlaceholder } from '../ui/record-placeholder.js';
import { useAsync } from '../ui/use-async.js';
import { BuyButton } from './buy-button.js';
import { ClaimedDescription } from './claimed-description.js';
import { ListingRecord } from './listing-record.js';
import { formatPrice } from './listing-values.js';
import { MarketplaceTabs } from './marketplace-tabs.js';
import { Rating } from './rating.js';
import { ReviewForm } from './review-form.js';
import { ReviewList } from './review-list.js';
import { useBoughtListings } from './use-bought-listings.js';
import { useListingRecord } from './use-listing-record.js';
import type { ListingRecordDetail } from './record-values.js';

/** A listing no longer listed, reached by its link: its record stays readable for good. */
function UnlistedListing({ detail }: { detail: ListingRecordDetail }) {
  return (
    <section>
      <MarketplaceTabs current="listing" />
      <h1>{detail.name}</h1>
      <p className="notice unlisted-note" role="status">
        No longer listed: the seller took it off the marketplace. Its verified record stays here for good.
      </p>
      <ListingRecord detail={detail} />
      {detail.claims.length > 0 ? (
        <section aria-labelledby="claims-title">
          <h2 id="claims-title">Its description’s claims</h2>
          <ClaimedDescription description="" claims={detail.claims} status={detail.current?.status ?? null} />
        </section>
      ) : null}
    </section>
  );
}

/**
 * One listing, led by its verified record (badge, equity, metrics, search effort, what was run);
 * then its description with each claimed figure beside the verified one, its rating and reviews.
 * Buy it, or, once bought, backtest or deploy it by its listing id and review it. The strategy's
 * source is never asked for. An unlisted listing reached by its link shows its record, marked.
 */
export function ListingPage({ id }: { id: string }) {
  const client = useClient();
  const listing = useAsync(`listing:${id}`, (signal) => client.marketplace.get({ params: { id } }, { signal }));
  const mine = useAsync('marketplace:mine', (signal) => client.marketplace.myListings({ query: { limit: 200 } }, { signal }));
  const bought = useBoughtListings();
  const record = useListingRecord(id);
  const [reviews, setReviews] = useState(0);
  const l = listing.data;

  if (!l && listing.error?.code === 'NOT_FOUND' && record.data && !record.data.listed) return <UnlistedListing detail={record.data} />;
  if (!l) {
    const waiting = listing.loading || (listing.error?.code === 'NOT_FOUND' && record.loading);
    return <RecordPlaceholder title="Listing" what="listing" error={waiting ? null : listing.error} loading={waiting} />;
  }
  const own = mine.data?.listings.some((m) => m.id === id) ?? false;
  const owned = bought.data?.some((b) => b.listingId === id) ?? false;
  const known = mine.data !== undefined && bought.data !== undefined;
  return (
    <section>
      <MarketplaceTabs current="listing" />
      <div className="page-header">
        <div>
          <h1>{l.name}</h1>
          <p className="muted">
            <span className="price">{formatPrice(l.price)}</span> · <Rating average={l.averageRating} count={l.reviewCount} /> · {l.purchaseCount} bought ·
            version {l.strategyVersion} · listed {formatTime(l.createdAt)}
          </p>
          {l.tags.length ? (
            <ul className="tags" aria-label="Tags">
              {l.tags.map((tag) => (
                <li key={tag} className="tag">
                  {tag}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
        <div className="actions">
          {!known ? <Loading label="Checking whether you have it…" /> : null}
          {known && own ? <Link to={{ name: 'myListings' }}>This is your listing: edit it in My listings</Link> : null}
          {known && owned ? (
            <>
              <Link className="button primary" to={{ name: 'newBacktest', strategyId: id }}>
                Backtest it
              </Link>
              <Link className="button" to={{ name: 'newDeployment', strategyId: id }}>
                Deploy it
              </Link>
            </>
          ) : null}
          {known && !own && !owned ? (
            <BuyButton
              listing={l}
              onBought={() => {
                bought.reload();
                listing.reload();
              }}
            />
          ) : null}
        </div>
      </div>
      <ErrorBanner error={mine.error ?? bought.error} title="Could not tell whether you have this listing" />
      {owned ? (
        <p className="notice" role="status">
          You have a run-only licence: backtest and deploy it by this listing; its source stays hidden.
        </p>
      ) : null}
      {record.data ? (
        <ListingRecord detail={record.data} />
      ) : (
        <section aria-labelledby="record-title">
          <h2 id="record-title">Verified record</h2>
          <ErrorBanner error={record.error} title="Could not load the verified record" />
          {record.loading ? <Loading label="Loading the verified record…" /> : null}
        </section>
      )}
      <section aria-labelledby="about-title">
        <h2 id="about-title">About</h2>
        {record.data ? (
          <ClaimedDescription description={l.description} claims={record.data.claims} status={record.data.current?.status ?? null} />
        ) : (
          <p className="muted">The seller’s description shows with the verified record, each claimed figure beside the measured one.</p>
        )}
      </section>
      <section aria-labelledby="reviews-title">
        <h2 id="reviews-title">Reviews</h2>
        {owned ? (
          <ReviewForm
            listingId={id}
            onSaved={() => {
              setReviews((n) => n + 1);
              listing.reload();
            }}
          />
        ) : null}
        <ReviewList listingId={id} refresh={reviews} />
      </section>
    </section>
  );
}
