import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { RateLimits } from '@stratbox/core';
import { createRedisRateLimiter, type RedisRateLimiter } from './redis-rate-limiter.js';
import { deleteKeys, REDIS_URL, requireRedis, uniquePrefix } from './testing/test-redis.js';

const available = await requireRedis('queue-bullmq: Redis rate limiter');

describe.runIf(available)('the Redis rate limiter (RateLimiter port on Redis)', () => {
  const prefixes: string[] = [];
  const limiters: RedisRateLimiter[] = [];
  const node = async (prefix: string, limits: Partial<RateLimits>) => {
    const limiter = createRedisRateLimiter({ connection: REDIS_URL, prefix, limits });
    limiters.push(limiter);
    await limiter.ready();
    return limiter;
  };
  const fresh = (name: string) => {
    const prefix = uniquePrefix(name);
    prefixes.push(prefix);
    return prefix;
  };
  afterAll(async () => {
    await Promise.all(limiters.map((limiter) => limiter.close()));
    for (const prefix of prefixes) await deleteKeys(prefix);
  });

  it('nodes on one prefix share one count per key; at most the limit gets through, spread or at once', async () => {
    const prefix = fresh('ratelimit-shared');
    const limits = { user: { points: 10, durationSeconds: 60 } };
    const [a, b] = [await node(prefix, limits), await node(prefix, limits)];
    const first = await a.hit('user', 'usr_1');
    expect(first).toMatchObject({ allowed: true, limit: 10, remaining: 9 });
    expect(first.resetMs).toBeGreaterThan(50_000);
    expect(await b.hit('user', 'usr_1')).toMatchObject({ allowed: true, remaining: 8 });
    const rest = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).hit('user', 'usr_1')));
    expect(rest.filter((d) => d.allowed)).toHaveLength(8);
    const refused = rest.find((d) => !d.allowed)!;
    expect(refused).toMatchObject({ limit: 10, remaining: 0 });
    expect(refused.resetMs).toBeGreaterThan(0);
    expect(refused.resetMs).toBeLessThanOrEqual(60_000);
    // another key, and the other scope with an equal key, have counts of their own
    expect(await a.hit('user', 'usr_2')).toMatchObject({ allowed: true, remaining: 9 });
    expect(await b.hit('ip', 'usr_1')).toMatchObject({ allowed: true });
  });

  it('keeps its counts under <prefix>:ratelimit: and another prefix counts apart', async () => {
    const prefix = fresh('ratelimit-keys');
    const other = fresh('ratelimit-other');
    const limits = { ip: { points: 1, durationSeconds: 60 } };
    const a = await node(prefix, limits);
    expect((await a.hit('ip', '10.0.0.1')).allowed).toBe(true);
    expect((await a.hit('ip', '10.0.0.1')).allowed).toBe(false);
    expect((await (await node(other, limits)).hit('ip', '10.0.0.1')).allowed).toBe(true);
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}:*`);
      expect(keys).toEqual([`${prefix}:ratelimit:ip:10.0.0.1`]);
      expect(await redis.pttl(keys[0]!)).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });

  it('the allowance comes back when the window ends', async () => {
    const a = await node(fresh('ratelimit-window'), { user: { points: 1, durationSeconds: 1 } });
    expect((await a.hit('user', 'u')).allowed).toBe(true);
    const refused = await a.hit('user', 'u');
    expect(refused.allowed).toBe(false);
    expect(refused.resetMs).toBeLessThanOrEqual(1000);
    // A caller that waits the resetMs it was told gets through: the window ended meanwhile (a
    // slow machine only makes the wait longer). The margin covers Redis's key expiry rounding.
    await new Promise((resolve) => setTimeout(resolve, refused.resetMs + 50));
    expect(await a.hit('user', 'u')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('counts in memory while Redis cannot be reached, instead of failing or waiting', async () => {
    const limiter = createRedisRateLimiter({
      connection: { host: '127.0.0.1', port: 1, retryStrategy: () => 5_000 },
      limits: { user: { points: 2, durationSeconds: 60 } },
    });
    limiters.push(limiter);
    expect((await limiter.hit('user', 'u')).allowed).toBe(true);
    expect((await limiter.hit('user', 'u')).allowed).toBe(true);
    expect(await limiter.hit('user', 'u')).toMatchObject({ allowed: false, remaining: 0 });
  });
});
