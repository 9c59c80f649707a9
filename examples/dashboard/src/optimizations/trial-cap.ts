import { isStratboxClientError, StratboxClientError } from '@stratbox/client';

/**
 * A refusal over the plan's trials per optimization (402 `PLAN_LIMIT_EXCEEDED` with
 * `details.counter: 'trials'`) said with its numbers and what to change; any other error as it is.
 */
export function readableTrialCap(error: unknown): unknown {
  if (!isStratboxClientError(error) || error.code !== 'PLAN_LIMIT_EXCEEDED') return error;
  const details = error.details as { counter?: unknown; used?: unknown; limit?: unknown } | undefined;
  if (details?.counter !== 'trials' || typeof details.used !== 'number' || typeof details.limit !== 'number') return error;
  const message =
    `This search holds ${details.used.toLocaleString('en')} trials; your plan allows ${details.limit.toLocaleString('en')} per optimization. ` +
    'Search fewer values or fewer folds, draw a random sample, or upgrade on the Billing page.';
  return new StratboxClientError(error.code, message, error.status, error.details);
}
