import { Link } from '../routing/link.js';
import type { Listing } from './listing.js';
import { formatPrice } from './listing-values.js';
import { Rating } from './rating.js';
import { RecordSummary } from './record-summary.js';

/**
 * A listing in the browse list: name, price, its verified record's badge and forward figures,
 * rating, tags (each a filter). Not its description: the figures a description may claim are
 * checked on the listing page, each beside the verified one, and a list card has no room for that.
 */
export function ListingCard({ listing, onTag }: { listing: Listing; onTag(tag: string): void }) {
  return (
    <li className="card listing-card">
      <div className="page-header">
        <h2>
          <Link to={{ name: 'listing', id: listing.id }}>{listing.name}</Link>
        </h2>
        <span className="price">{formatPrice(listing.price)}</span>
      </div>
      <RecordSummary summary={listing.record} />
      <p className="muted small">
        <Rating average={listing.averageRating} count={listing.reviewCount} /> · {listing.purchaseCount} bought · version {listing.strategyVersion}
      </p>
      {listing.tags.length > 0 ? (
        <ul className="tags" aria-label="Tags">
          {listing.tags.map((tag) => (
            <li key={tag}>
              <button type="button" className="tag" onClick={() => onTag(tag)} aria-label={`Filter by tag ${tag}`}>
                {tag}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}
