import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';

/** A listing's reviews, newest first, 20 a page; their text shown as text, never as markup. */
export function ReviewList({ listingId, refresh }: { listingId: string; refresh: number }) {
  const client = useClient();
  const list = usePagedList(
    `reviews:${listingId}:${refresh}`,
    (at, signal) => client.marketplace.reviews({ params: { id: listingId }, query: { limit: 20, ...at } }, { signal }),
    (page) => page.reviews,
  );
  return (
    <PagedListView
      list={list}
      errorTitle="Could not load the reviews"
      loadingLabel="Loading reviews…"
      moreLabel="More reviews"
      empty={<EmptyState title="No reviews yet">Buyers can review a listing once they have it.</EmptyState>}
    >
      <ul className="reviews">
        {list.items.map((review) => (
          <li key={review.id} className="card review">
            <p>
              <strong>
                <span aria-hidden="true">{'★'.repeat(review.rating)}</span> {review.rating} of 5
              </strong>{' '}
              <span className="muted small">{formatTime(review.updatedAt)}</span>
            </p>
            <p className="review-text">{review.text}</p>
          </li>
        ))}
      </ul>
    </PagedListView>
  );
}
