import { type FormEvent, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { FieldError } from '../ui/field-error.js';
import { useAction } from '../ui/use-action.js';
import type { Review } from './listing.js';

/**
 * A buyer's review: a rating from 1 to 5 and a text. Written once per listing (the service
 * answers 409 to a second); once written here it can be edited.
 */
export function ReviewForm({ listingId, onSaved }: { listingId: string; onSaved(review: Review): void }) {
  const client = useClient();
  const [rating, setRating] = useState('5');
  const [text, setText] = useState('');
  const [mine, setMine] = useState<Review | null>(null);
  const [notice, setNotice] = useState('');
  const save = useAction();
  const { error, busy: saving } = save;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setNotice('');
    const body = { rating: Number(rating), text };
    await save.run(async () => {
      const saved = mine
        ? await client.marketplace.updateReview({ params: { id: listingId, reviewId: mine.id }, body })
        : await client.marketplace.review({ params: { id: listingId }, body });
      setMine(saved);
      setNotice(mine ? 'Review updated' : 'Review published');
      onSaved(saved);
    });
  }

  return (
    <form className="card review-form" onSubmit={submit} noValidate aria-labelledby="review-form-title">
      <h3 id="review-form-title">{mine ? 'Edit your review' : 'Write a review'}</h3>
      <ErrorBanner error={error} title="The review was not saved" />
      <div className="form-row">
        <div className="field">
          <label htmlFor="review-rating">Rating</label>
          <select id="review-rating" value={rating} onChange={(e) => setRating(e.target.value)} aria-invalid={Boolean(error?.fields.rating)}>
            {[5, 4, 3, 2, 1].map((n) => (
              <option key={n} value={n}>
                {n} of 5
              </option>
            ))}
          </select>
          <FieldError id="review-rating-error" messages={error?.fields.rating} />
        </div>
        <div className="field grow">
          <label htmlFor="review-text">Review</label>
          <textarea
            id="review-text"
            rows={3}
            maxLength={5000}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={Boolean(error?.fields.text)}
            aria-describedby={error?.fields.text ? 'review-text-error' : undefined}
          />
          <FieldError id="review-text-error" messages={error?.fields.text} />
        </div>
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? 'Saving…' : mine ? 'Update review' : 'Publish review'}
        </button>
        <output className="notice" aria-live="polite">
          {notice}
        </output>
      </div>
    </form>
  );
}
