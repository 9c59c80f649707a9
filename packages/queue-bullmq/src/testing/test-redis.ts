import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** True if Redis answers PING within a second. */
export async function redisReachable(url = REDIS_URL): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Whether to run the Redis tests: in CI (`CI` set) an unreachable Redis is an error, never a
 * skip; elsewhere the tests are skipped with a notice.
 */
export async function requireRedis(what: string): Promise<boolean> {
  if (await redisReachable()) return true;
  if (process.env.CI) throw new Error(`${what}: Redis is not reachable at ${REDIS_URL}, and CI is set: these tests must run`);
  console.warn(`[${what}] Redis is not reachable at ${REDIS_URL}: skipping (set REDIS_URL, or start redis-server)`);
  return false;
}

/** A key prefix of its own for one test run. */
export function uniquePrefix(name: string): string {
  return `stratbox-test:${name}:${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(prefix: string, url = REDIS_URL): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return deleted;
}
