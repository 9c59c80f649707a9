import { StratboxClientError } from '@stratbox/client';
import { describe, expect, it } from 'vitest';
import { conflictingReviewId } from './review-conflict.js';

describe('conflictingReviewId', () => {
  it("reads the existing review's id from a 409 CONFLICT", () => {
    const error = new StratboxClientError('CONFLICT', 'You already reviewed listing lst_1; edit your review instead', 409, { reviewId: 'rev_1' });
    expect(conflictingReviewId(error)).toBe('rev_1');
  });

  it('is null for other errors, a conflict without the id, and anything that is not a client error', () => {
    expect(conflictingReviewId(new StratboxClientError('CONFLICT', 'Bought already', 409))).toBeNull();
    expect(conflictingReviewId(new StratboxClientError('CONFLICT', 'odd', 409, { reviewId: 7 }))).toBeNull();
    expect(conflictingReviewId(new StratboxClientError('FORBIDDEN', 'Only buyers', 403, { reviewId: 'rev_1' }))).toBeNull();
    expect(conflictingReviewId(new Error('offline'))).toBeNull();
    expect(conflictingReviewId(undefined)).toBeNull();
  });
});
