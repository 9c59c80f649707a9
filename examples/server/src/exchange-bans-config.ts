import type { ExchangeBans, Logger } from '@stratbox/core';
import { createRedisExchangeBans } from '@stratbox/queue-bullmq';
import type { ScaleOutConfig } from './roles.js';

/**
 * Where 429/418 exchange bans are kept per credential: on Redis when REDIS_URL is set (every
 * process that trades on a credential holds its orders back together, keys under the same
 * prefix as the queue's), else undefined (each process in its own memory, Stratbox's default).
 */
export function openExchangeBans(scale: ScaleOutConfig, logger: Logger): (ExchangeBans & { close(): Promise<void> }) | undefined {
  if (!scale.redisUrl) return undefined;
  return createRedisExchangeBans({
    connection: scale.redisUrl,
    prefix: scale.redisPrefix,
    onError: (error) => logger.error('exchange bans redis error', { error: error instanceof Error ? error.message : String(error) }),
  });
}
