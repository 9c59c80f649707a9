import type { NotificationSettings } from './notification-settings.js';

/**
 * When a failed delivery is tried again: `firstDelayMs` doubling per attempt up to `maxDelayMs`,
 * with ±20 % jitter (so that a receiver that came back is not hit by every node at once), or
 * later when the receiver asked (`Retry-After`). Null when the next attempt would fall after
 * `giveUpAfterMs` from the delivery's creation: the delivery has failed for good.
 */
export function nextAttemptAt(
  retry: NotificationSettings['retry'],
  input: { attemptsMade: number; createdAt: string; now: Date; retryAfterMs?: number | undefined; random?: () => number },
): Date | null {
  const exponent = Math.max(0, input.attemptsMade - 1);
  const base = Math.min(retry.maxDelayMs, retry.firstDelayMs * 2 ** Math.min(exponent, 30));
  const jitter = 1 + ((input.random ?? Math.random)() * 0.4 - 0.2);
  const delay = Math.max(base * jitter, input.retryAfterMs ?? 0);
  const at = new Date(input.now.getTime() + delay);
  return at.getTime() - Date.parse(input.createdAt) > retry.giveUpAfterMs ? null : at;
}
