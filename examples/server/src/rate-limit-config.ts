import { createMemoryRateLimiter, resolveRateLimits, type Logger, type RateLimit, type RateLimiter, type RateLimits } from '@stratbox/core';
import { createRedisRateLimiter } from '@stratbox/queue-bullmq';
import type { ScaleOutConfig } from './roles.js';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** `1200/60s`, `1200/1m`, `20/s`, `5000/1h` or `1200/60` (seconds): requests per window. */
export function parseRateLimit(name: string, raw: string): RateLimit {
  const match = /^\s*(\d+)\s*\/\s*(\d+)?\s*([smh])?\s*$/.exec(raw);
  if (!match || (!match[2] && !match[3])) throw new Error(`${name} must look like 1200/60s, 1200/1m, 20/s or 5000/1h, got ${raw}`);
  const points = Number(match[1]);
  const durationSeconds = Number(match[2] ?? 1) * UNIT_SECONDS[match[3] ?? 's']!;
  try {
    resolveRateLimits({ user: { points, durationSeconds } });
  } catch {
    throw new Error(`${name} needs at least 1 request per window of at least 1 second, got ${raw}`);
  }
  return { points, durationSeconds };
}

/**
 * The rate limits, from `STRATBOX_RATE_LIMIT` (per user; `off` turns rate limiting off) and
 * `STRATBOX_RATE_LIMIT_IP` (per client address without valid credentials); `null` when off.
 */
export function readRateLimits(env: NodeJS.ProcessEnv = process.env): RateLimits | null {
  if (env.STRATBOX_RATE_LIMIT?.trim() === 'off') return null;
  return resolveRateLimits({
    ...(env.STRATBOX_RATE_LIMIT ? { user: parseRateLimit('STRATBOX_RATE_LIMIT', env.STRATBOX_RATE_LIMIT) } : {}),
    ...(env.STRATBOX_RATE_LIMIT_IP ? { ip: parseRateLimit('STRATBOX_RATE_LIMIT_IP', env.STRATBOX_RATE_LIMIT_IP) } : {}),
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
