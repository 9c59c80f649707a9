/**
 * Who a request is counted against: `user` once authenticated (every API key of the user shares
 * one allowance), `ip` otherwise (missing or bad credentials, the billing webhook, unknown routes).
 */
export type RateLimitScope = 'user' | 'ip';

/** The answer for one request, and what the `RateLimit-*` response headers say. */
export interface RateLimitDecision {
  /** False: the caller used up its allowance for this window; answer 429. */
  allowed: boolean;
  /** Requests allowed per window (`RateLimit-Limit`). */
  limit: number;
  /** Requests left in the current window after this one, never negative (`RateLimit-Remaining`). */
  remaining: number;
  /** Milliseconds until the window ends and the whole allowance is back (`RateLimit-Reset`, `Retry-After`). */
  resetMs: number;
}

/**
 * Counts requests per caller against a limit per window. Guarantees an implementation must give:
 *
 * - Atomic per key: however many requests of one caller arrive at once (on however many nodes
 *   share the implementation's storage), at most `limit` of them are allowed in one window.
 * - Keys are independent: one caller using up its allowance never changes another's answers, and
 *   the two scopes never share a count, even for equal keys.
 * - A refused request does not extend the window: `resetMs` after the refusal the caller is
 *   allowed again.
 * - `hit` answers `allowed: false` for a caller over its limit; it rejects only when its storage
 *   fails (adapters then let the request through and log, rather than refuse everybody).
 * - `close` releases connections and timers; no `hit` is made after it.
 */
export interface RateLimiter {
  /** Counts one request of `key` (a user id, or a client address) in `scope`. */
  hit(scope: RateLimitScope, key: string): Promise<RateLimitDecision>;
  close(): Promise<void>;
}
