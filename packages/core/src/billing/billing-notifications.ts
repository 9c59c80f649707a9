import { recordNotificationEvent } from '../notifications/record-event.js';
import type { StoreRepositories, SubscriptionRecord } from '../ports/store.js';

/*
 * The notification events of billing: `subscription.changed`, and `usage.limit_near` (80 %) and
 * `usage.limit_reached` (100 %) of a period's counter. Pass the repositories of the transaction
 * that makes the change.
 */

type Outbox = Pick<StoreRepositories, 'notificationEvents'>;

/** The share of a limit at which `usage.limit_near` is sent. */
export const USAGE_NEAR_RATIO = 0.8;

/**
 * `subscription.changed` when the tier or the status differs from before; keyed by the
 * provider's event, so a redelivered webhook writes it once.
 */
export async function recordSubscriptionChange(
  tx: Outbox,
  before: Pick<SubscriptionRecord, 'tier' | 'status'> | null,
  after: Pick<SubscriptionRecord, 'userId' | 'tier' | 'status'>,
  source: { provider: string; eventId: string },
  at: string,
): Promise<void> {
  if (before && before.tier === after.tier && before.status === after.status) return;
  const was = before ? ` (was ${before.tier}, ${before.status})` : '';
  await recordNotificationEvent(tx, {
    type: 'subscription.changed',
    userId: after.userId,
    subject: { kind: 'subscription', id: after.userId },
    summary: `Your subscription is now ${after.tier}, ${after.status}${was}`,
    data: { tier: after.tier, status: after.status, previousTier: before?.tier ?? null, previousStatus: before?.status ?? null },
    time: at,
    dedupeKey: `subscription.changed:${source.provider}:${source.eventId}`,
  });
}

export interface UsageCrossing {
  userId: string;
  counter: 'compute' | 'backtests';
  /** The counter before and after the increment, in its own unit (compute: ms). */
  before: number;
  after: number;
  /** The period's limit in the same unit. */
  limit: number;
  /** How `used` and `limit` are shown (compute: ms to CPU-seconds). */
  shown: (value: number) => number;
  periodStart: string;
  at: string;
}

/**
 * `usage.limit_near` when an increment passes 80 % of the limit and `usage.limit_reached` when it
 * reaches 100 % (both when one increment does both); once per counter and period, by the dedupe
 * key (a release and a new reservation crossing again write nothing).
 */
export async function recordUsageCrossings(tx: Outbox, c: UsageCrossing): Promise<void> {
  if (!(c.limit > 0) || !(c.after > c.before)) return;
  const steps = [
    { type: 'usage.limit_near' as const, threshold: c.limit * USAGE_NEAR_RATIO, words: 'passed 80 % of' },
    { type: 'usage.limit_reached' as const, threshold: c.limit, words: 'reached' },
  ];
  const unit = c.counter === 'compute' ? ' CPU-seconds' : ' backtests';
  for (const step of steps) {
    if (!(c.before < step.threshold && c.after >= step.threshold)) continue;
    const used = c.shown(c.after);
    const limit = c.shown(c.limit);
    await recordNotificationEvent(tx, {
      type: step.type,
      userId: c.userId,
      subject: { kind: 'usage', id: c.counter },
      summary: `Your ${c.counter} usage ${step.words} its limit: ${used} of ${limit}${unit} this period`,
      data: { counter: c.counter, used, limit, periodStart: c.periodStart },
      time: c.at,
      dedupeKey: `${step.type}:${c.userId}:${c.counter}:${c.periodStart}`,
    });
  }
}
