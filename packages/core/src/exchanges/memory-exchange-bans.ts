import type { ExchangeBans } from '../ports/exchange-bans.js';

/**
 * The ExchangeBans port in this process's memory: every deployment of the process on one
 * credential honours a ban together. For several processes, use a shared implementation (the
 * Redis one of `@stratbox/queue-bullmq`).
 */
export function createMemoryExchangeBans(options: { now?: () => number } = {}): ExchangeBans {
  const now = options.now ?? Date.now;
  const bans = new Map<string, number>();
  return {
    async banUntil(accountKey, untilMs) {
      if (untilMs > (bans.get(accountKey) ?? 0)) bans.set(accountKey, untilMs);
    },
    async bannedUntil(accountKey) {
      const until = bans.get(accountKey);
      if (until === undefined) return null;
      if (until > now()) return until;
      bans.delete(accountKey);
      return null;
    },
  };
}
