import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimiter, RateLimitScope } from '../ports/rate-limiter.js';

/** At most `points` requests per window of `durationSeconds` (whole seconds). */
export interface RateLimit {
  points: number;
  durationSeconds: number;
}

/** One limit per scope: authenticated users, and client addresses of unauthenticated requests. */
export type RateLimits = Record<RateLimitScope, RateLimit>;

/**
 * 1,200 requests a minute per user (20 a second on average, all at once if need be: a dashboard
 * or a script polling its backtests every second stays far below it) and 300 a minute per client
 * address for requests without valid credentials (enough for payment webhooks, few for guessing keys).
 */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  user: { points: 1200, durationSeconds: 60 },
  ip: { points: 300, durationSeconds: 60 },
};

/** The limits, `given` over the defaults, checked. */
export function resolveRateLimits(given: Partial<RateLimits> = {}): RateLimits {
  const limits = { ...DEFAULT_RATE_LIMITS, ...given };
  for (const [scope, { points, durationSeconds }] of Object.entries(limits)) {
    if (!Number.isInteger(points) || points < 1) throw new Error(`rate limit ${scope}: points must be a positive integer, got ${points}`);
    if (!Number.isInteger(durationSeconds) || durationSeconds < 1)
      throw new Error(`rate limit ${scope}: durationSeconds must be a positive integer, got ${durationSeconds}`);
  }
  return limits;
}

/** What rate-limiter-flexible rejects with when a key is over its limit (anything else is a store failure). */
function isOverLimit(error: unknown): error is { msBeforeNext: number } {
  return typeof error === 'object' && error !== null && !(error instanceof Error) && typeof (error as { msBeforeNext?: unknown }).msBeforeNext === 'number';
}

/**
 * A RateLimiter over one rate-limiter-flexible limiter per scope, made by `make` (in memory,
 * on Redis, ...): a fixed window per key that starts at its first request.
 */
export function createFlexibleRateLimiter(
  given: Partial<RateLimits> | undefined,
  make: (scope: RateLimitScope, limit: RateLimit) => RateLimiterAbstract,
  close: () => Promise<void> = async () => {},
): RateLimiter {
  const limits = resolveRateLimits(given);
  const limiters: Record<RateLimitScope, RateLimiterAbstract> = { user: make('user', limits.user), ip: make('ip', limits.ip) };
  return {
    async hit(scope, key) {
      const limit = limits[scope].points;
      try {
        const res = await limiters[scope].consume(key);
        return { allowed: true, limit, remaining: Math.max(0, res.remainingPoints), resetMs: Math.max(0, res.msBeforeNext) };
      } catch (error) {
        if (!isOverLimit(error)) throw error;
        return { allowed: false, limit, remaining: 0, resetMs: Math.max(0, error.msBeforeNext) };
      }
    },
    close,
  };
}

/**
 * The default RateLimiter: counts in this process's memory (rate-limiter-flexible's
 * RateLimiterMemory), so each process of a service has its own counts. Several nodes share one
 * count with `createRedisRateLimiter` from `@stratbox/queue-bullmq`.
 */
export function createMemoryRateLimiter(limits?: Partial<RateLimits>): RateLimiter {
  return createFlexibleRateLimiter(limits, (scope, limit) => memoryLimiter(scope, limit));
}

/** rate-limiter-flexible's in-memory limiter for one scope (also the Redis limiter's fallback). */
export function memoryLimiter(scope: RateLimitScope, limit: RateLimit): RateLimiterMemory {
  return new RateLimiterMemory({ keyPrefix: `ratelimit:${scope}`, points: limit.points, duration: limit.durationSeconds });
}
