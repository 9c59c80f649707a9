import { Redis, type RedisOptions } from 'ioredis';

/** Where Redis is: a `redis://` URL or ioredis options. */
export type RedisConnection = string | RedisOptions;

/**
 * A new ioredis client. `maxRetriesPerRequest: null` is what BullMQ's workers require (their
 * blocking commands must wait across reconnects instead of failing); `overrides` change that
 * for clients whose commands must not wait.
 */
export function openRedis(connection: RedisConnection, name: string, overrides: RedisOptions = {}): Redis {
  const options: RedisOptions = { maxRetriesPerRequest: null, connectionName: name, ...overrides };
  return typeof connection === 'string' ? new Redis(connection, options) : new Redis({ ...connection, ...options });
}

/** Quits a client politely, or disconnects it when Redis does not answer. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    await Promise.race([client.quit(), new Promise((_, reject) => setTimeout(() => reject(new Error('quit timed out')), 2000).unref())]);
  } catch {
    client.disconnect();
  }
}
