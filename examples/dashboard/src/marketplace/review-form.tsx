import type { StratboxClient } from '@stratbox/client';
import { type FormEvent, useState } from 'react';
import { useClient } from '../session/session-context.js';
import type { ErrorView } from '../ui/describe-error.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { FormField } from '../ui/form-field.js';
import { formatTime } from '../ui/format.js';
import { Loading } from '../ui/loading.js';
import { useAction } from '../ui/use-action.js';
import { useAsync } from '../ui/use-async.js';
import type { Review } from './listing.js';
import { conflictingReviewId } from './review-conflict.js';

/** The caller's own review of the listing (`mine=true`: never someone else's), or null. */
async function ownReview(client: StratboxClient, listingId: string, signal?: AbortSignal): Promise<Review | null> {
  const page = await client.marketplace.reviews({ params: { id: listingId }, query: { mine: 'true' } }, signal ? { signal } : {});
  return page.reviews[0] ?? null;
}

/**
 * A buyer's review: a rating from 1 to 5 and a text. Written once per listing: the form first
 * loads the buyer's own review and, if there is one, edits it ("Edit your review", filled in).
 * Should publishing still answer 409 (reviewed meanwhile, e.g. in another tab), the form switches
 * to editing that review and says so, keeping what was typed.
 */
export function ReviewForm({ listingId, onSaved }: { listingId: string; onSaved(review: Review): void }) {
  const client = useClient();
  const own = useAsync(`review:mine:${listingId}`, (signal) => ownReview(client, listingId, signal));
  if (own.data === undefined && own.loading) {
    return (
      <div className="card review-form">
        <Loading label="Loading your review…" />
      </div>
    );
  }
  return <ReviewEditor key={listingId} listingId={listingId} initial={own.data ?? null} loadError={own.error} onSaved={onSaved} />;
}

function ReviewEditor({
  listingId,
  initial,
  loadError,
  onSaved,
}: {
  listingId: string;
  initial: Review | null;
  loadError: ErrorView | null;
  onSaved(review: Review): void;
}) {
  const client = useClient();
  const [rating, setRating] = useState(String(initial?.rating ?? 5));
  const [text, setText] = useState(initial?.text ?? '');
  const [reviewId, setReviewId] = useState<string | null>(initial?.id ?? null);
  const [notice, setNotice] = useState('');
  const [switched, setSwitched] = useState('');
  const save = useAction();
  const { error, busy: saving } = save;

  async function publish(body: { rating: number; text: string }) {
    try {
      const saved = await client.marketplace.review({ params: { id: listingId }, body });
      setReviewId(saved.id);
      setNotice('Review published');
      onSaved(saved);
    } catch (caught) {
      const existingId = conflictingReviewId(caught);
      if (!existingId) throw caught;
      const existing = await ownReview(client, listingId).catch(() => null);
      const saved = existing?.id === existingId ? ` (${existing.rating} of 5, ${formatTime(existing.updatedAt)})` : '';
      setReviewId(existingId);
      setSwitched(`You had already reviewed this listing${saved}, so this form now edits that review: Update review replaces it with what you wrote here.`);
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setNotice('');
    setSwitched('');
    const body = { rating: Number(rating), text };
    await save.run(async () => {
      if (!reviewId) return publish(body);
      const saved = await client.marketplace.updateReview({ params: { id: listingId, reviewId }, body });
      setNotice('Review updated');
      onSaved(saved);
    });
  }

  return (
    <form className="card review-form" onSubmit={submit} noValidate aria-labelledby="review-form-title">
      <h3 id="review-form-title">{reviewId ? 'Edit your review' : 'Write a review'}</h3>
      <ErrorBanner error={loadError} title="Could not load your review" />
      <ErrorBanner error={error} title="The review was not saved" />
      {switched ? (
        <p className="notice" role="status">
          {switched}
        </p>
      ) : null}
      <div className="form-row">
        <FormField id="review-rating" label="Rating" errors={error?.fields.rating}>
          {(describedBy, invalid) => (
            <select id="review-rating" value={rating} onChange={(e) => setRating(e.target.value)} aria-invalid={invalid} aria-describedby={describedBy}>
              {[5, 4, 3, 2, 1].map((n) => (
                <option key={n} value={n}>
                  {n} of 5
                </option>
              ))}
            </select>
          )}
        </FormField>
        <FormField id="review-text" label="Review" errors={error?.fields.text} grow>
          {(describedBy, invalid) => (
            <textarea
              id="review-text"
              rows={3}
              maxLength={5000}
              value={text}
              onChange={(e) => setText(e.target.value)}
              aria-invalid={invalid}
              aria-describedby={describedBy}
            />
          )}
        </FormField>
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? 'Saving…' : reviewId ? 'Update review' : 'Publish review'}
        </button>
        <output className="notice" aria-live="polite">
          {notice}
        </output>
      </div>
    </form>
  );
}
