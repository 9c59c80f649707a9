import { Link } from '../routing/link.js';
import type { Listing } from './listing.js';
import { formatPrice } from './listing-values.js';
import { Rating } from './rating.js';

/** A listing in the browse list: name, price, rating, tags (each a filter), the start of its description. */
export function ListingCard({ listing, onTag }: { listing: Listing; onTag(tag: string): void }) {
  return (
    <li className="card listing-card">
      <div className="page-header">
        <h2>
          <Link to={{ name: 'listing', id: listing.id }}>{listing.name}</Link>
        </h2>
        <span className="price">{formatPrice(listing.price)}</span>
      </div>
      <p className="listing-description">{listing.description || <span className="muted">No description.</span>}</p>
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
