import { StratboxClientError } from '@stratbox/client';
import { describe, expect, it } from 'vitest';
import { readableTrialCap } from './trial-cap.js';

describe('readableTrialCap', () => {
  it('says a refusal over the trials cap with its numbers', () => {
    const refused = new StratboxClientError('PLAN_LIMIT_EXCEEDED', 'The optimization holds 4704 trials', 402, { counter: 'trials', used: 4704, limit: 1000 });
    const readable = readableTrialCap(refused) as StratboxClientError;
    expect(readable.message).toBe(
      'This search holds 4,704 trials; your plan allows 1,000 per optimization. Search fewer values or fewer folds, draw a random sample, or upgrade on the Billing page.',
    );
    expect([readable.code, readable.status]).toEqual(['PLAN_LIMIT_EXCEEDED', 402]);
  });

  it('leaves any other error as it is', () => {
    const compute = new StratboxClientError('PLAN_LIMIT_EXCEEDED', 'No compute left', 402, { counter: 'compute', used: 10, limit: 10 });
    const invalid = new StratboxClientError('VALIDATION_FAILED', 'Bad', 400, []);
    expect(readableTrialCap(compute)).toBe(compute);
    expect(readableTrialCap(invalid)).toBe(invalid);
  });
});
