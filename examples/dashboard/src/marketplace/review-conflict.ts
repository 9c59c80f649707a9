import { isStratboxClientError } from '@stratbox/client';

/**
 * The id of the caller's existing review when publishing answered 409 `CONFLICT` with
 * `details: { reviewId }` (they had reviewed the listing already, e.g. from another tab); null
 * for anything else, which the form shows as an error.
 */
export function conflictingReviewId(error: unknown): string | null {
  if (!isStratboxClientError(error) || error.code !== 'CONFLICT') return null;
  const details = error.details;
  if (!details || typeof details !== 'object') return null;
  const { reviewId } = details as Record<string, unknown>;
  return typeof reviewId === 'string' && reviewId !== '' ? reviewId : null;
}
