import { createMemoryRateLimiter, resolveRateLimits, type Logger, type RateLimiter, type RateLimits } from '@stratbox/core';
import { createRedisRateLimiter } from '@stratbox/queue-bullmq';
import type { ServerEnv } from './env.js';
import type { ScaleOutConfig } from './roles.js';

export { parseRateLimit } from './env.js';

/**
 * The rate limits, from `STRATBOX_RATE_LIMIT` (per user; `off` turns rate limiting off) and
 * `STRATBOX_RATE_LIMIT_IP` (per client address without valid credentials); `null` when off.
 */
export function readRateLimits(env: ServerEnv): RateLimits | null {
  const user = env.STRATBOX_RATE_LIMIT;
  const ip = env.STRATBOX_RATE_LIMIT_IP;
  if (user === 'off') return null;
  return resolveRateLimits({
    ...(user ? { user } : {}),
    ...(ip && ip !== 'off' ? { ip } : {}),
  });
}

/**
 * The HTTP rate limiter: on Redis when REDIS_URL is set (one count per caller for every API
 * node sharing the prefix), else in this process; `false` when turned off. Waits for Redis.
 */
export async function openRateLimiter(limits: RateLimits | null, scale: ScaleOutConfig, logger: Logger): Promise<RateLimiter | false> {
  if (!limits) return false;
  if (!scale.redisUrl) return createMemoryRateLimiter(limits);
  const limiter = createRedisRateLimiter({
    connection: scale.redisUrl,
    prefix: scale.redisPrefix,
    limits,
    onError: (error) => logger.error('rate limiter redis error', { error: error instanceof Error ? error.message : String(error) }),
  });
  await limiter.ready();
  return limiter;
}
