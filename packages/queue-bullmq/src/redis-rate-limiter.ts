import { RateLimiterRedis } from 'rate-limiter-flexible';
import { createFlexibleRateLimiter, memoryLimiter, type RateLimiter, type RateLimits } from '@stratbox/core';
import { closeRedis, openRedis, type RedisConnection } from './connection.js';

export interface RedisRateLimiterConfig {
  /** Redis: a `redis://` URL or ioredis options. The limiter opens (and closes) one client of its own. */
  connection: RedisConnection;
  /** Prefix of every Redis key (default `stratbox`): keys are `<prefix>:ratelimit:<scope>:<key>`. Nodes that share limits share it. */
  prefix?: string;
  /** Limits per scope over `DEFAULT_RATE_LIMITS`. */
  limits?: Partial<RateLimits>;
  /** Called with Redis connection errors. Must not throw. */
  onError?: (error: unknown) => void;
}

export interface RedisRateLimiter extends RateLimiter {
  /** Resolves once the Redis connection is up: until then each node counts in its own memory. */
  ready(): Promise<void>;
}

/**
 * The RateLimiter port on Redis (rate-limiter-flexible's RateLimiterRedis), for several API nodes:
 * every node with the same Redis and prefix counts a caller's requests in one key, so a caller
 * gets one allowance however its requests are spread. Each request is one atomic Lua script
 * (increment, set the window's expiry on the first request): one round trip.
 *
 * While Redis is not connected (at start, or down), each node counts in its own memory with the
 * same limits instead of waiting or refusing everybody, and goes back to Redis once it is up.
 */
export function createRedisRateLimiter(config: RedisRateLimiterConfig): RedisRateLimiter {
  const prefix = `${config.prefix ?? 'stratbox'}:ratelimit`;
  // a request must not wait for a reconnect: a failed command falls back to memory at once
  const client = openRedis(config.connection, 'stratbox-rate-limit', { maxRetriesPerRequest: 1 });
  client.on('error', (error) => {
    try {
      config.onError?.(error);
    } catch {
      // the error hook must not break the limiter
    }
  });
  const limiter = createFlexibleRateLimiter(
    config.limits,
    (scope, limit) =>
      new RateLimiterRedis({
        storeClient: client,
        keyPrefix: `${prefix}:${scope}`,
        points: limit.points,
        duration: limit.durationSeconds,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memoryLimiter(scope, limit),
      }),
    () => closeRedis(client),
  );
  return {
    ...limiter,
    ready: () => (client.status === 'ready' ? Promise.resolve() : new Promise<void>((resolve) => client.once('ready', () => resolve()))),
  };
}
