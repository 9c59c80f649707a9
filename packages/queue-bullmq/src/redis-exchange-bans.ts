import { createMemoryExchangeBans, type ExchangeBans } from '@stratbox/core';
import { closeRedis, openRedis, type RedisConnection } from './connection.js';

export interface RedisExchangeBansConfig {
  /** Redis: a `redis://` URL or ioredis options. The store opens (and closes) one client of its own. */
  connection: RedisConnection;
  /** Prefix of every Redis key (default `stratbox`): keys are `<prefix>:exchange-ban:<account key>`. Nodes that share bans share it. */
  prefix?: string;
  /** Called with Redis connection and command errors. Must not throw. */
  onError?: (error: unknown) => void;
}

export interface RedisExchangeBans extends ExchangeBans {
  /** Resolves once the Redis connection is up: until then each node keeps bans in its own memory. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Sets the ban's end unless a later one is kept; the key expires with the ban. */
const BAN_UNTIL = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`;

/**
 * The ExchangeBans port on Redis, for several nodes trading on the same exchange accounts: a
 * 429 or 418 one node is answered is honoured by every node with the same Redis and prefix at
 * its next request. Each ban is one key holding its end (epoch ms), expiring with it; recording
 * one is a single atomic script that never shortens a ban.
 *
 * Every ban is also kept in this process's memory, so that while Redis is not connected (at
 * start, or down) a node still honours the bans it was told of itself, and reads fail over to it
 * at once instead of waiting for a reconnect.
 */
export function createRedisExchangeBans(config: RedisExchangeBansConfig): RedisExchangeBans {
  const prefix = `${config.prefix ?? 'stratbox'}:exchange-ban`;
  const client = openRedis(config.connection, 'stratbox-exchange-bans', { maxRetriesPerRequest: 1 });
  const local = createMemoryExchangeBans();
  const report = (error: unknown) => {
    try {
      config.onError?.(error);
    } catch {
      // the error hook must not break the bans
    }
  };
  client.on('error', report);
  const key = (accountKey: string) => `${prefix}:${accountKey}`;

  return {
    async banUntil(accountKey, untilMs) {
      await local.banUntil(accountKey, untilMs);
      const ttl = Math.ceil(untilMs - Date.now());
      if (ttl <= 0) return;
      try {
        await client.eval(BAN_UNTIL, 1, key(accountKey), String(Math.ceil(untilMs)), String(ttl));
      } catch (error) {
        report(error);
      }
    },
    async bannedUntil(accountKey) {
      const mine = await local.bannedUntil(accountKey);
      let shared: number | null = null;
      try {
        const value = await client.get(key(accountKey));
        shared = value === null ? null : Number(value);
      } catch (error) {
        report(error);
      }
      const until = Math.max(mine ?? 0, shared !== null && Number.isFinite(shared) ? shared : 0);
      return until > Date.now() ? until : null;
    },
    ready: () => (client.status === 'ready' ? Promise.resolve() : new Promise<void>((resolve) => client.once('ready', () => resolve()))),
    close: () => closeRedis(client),
  };
}
