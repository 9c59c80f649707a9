import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { NotificationSender, SendOutcome } from '../ports/notification-sender.js';
import type { SecretBox } from '../ports/secret-box.js';
import type { NotificationChannelRecord, NotificationDeliveryPatch, NotificationDeliveryRecord, Store } from '../ports/store.js';
import { openChannelTarget } from './channel-secrets.js';
import { deliveryPayload } from './delivery-payload.js';
import type { NotificationSettings } from './notification-settings.js';
import { recordNotificationEvent } from './record-event.js';
import { nextAttemptAt } from './retry-schedule.js';

export interface DeliveryAttemptDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  secretBox: SecretBox;
  sender: NotificationSender;
  settings: NotificationSettings;
}

/** Makes one attempt at a delivery the caller holds (claimed, or just written by a test send). */
export type DeliveryAttempt = (
  delivery: NotificationDeliveryRecord,
  options: { retry: boolean; signal?: AbortSignal },
) => Promise<NotificationDeliveryRecord | null>;

/**
 * One attempt at one delivery, and its outcome recorded with a compare-and-set on `attempts`
 * (so two nodes that somehow both hold it record one attempt):
 * - delivered on a 2xx;
 * - otherwise pending again at the next time of the retry schedule (honouring `Retry-After`),
 *   or, when retrying cannot help or a day has passed, failed: the channel is then paused and
 *   its owner told on their other channels (`channel.paused`), in the same transaction.
 * With `retry: false` (a test send) a failed attempt fails the delivery at once and pauses nothing.
 * A delivery of a paused channel is left pending for when it resumes.
 */
export function createDeliveryAttempt({ store, clock, logger, secretBox, sender, settings }: DeliveryAttemptDeps): DeliveryAttempt {
  async function pauseChannel(
    channel: NotificationChannelRecord,
    delivery: NotificationDeliveryRecord,
    patch: NotificationDeliveryPatch,
    outcome: SendOutcome,
  ) {
    const now = clock.now().toISOString();
    const reason = `Delivery ${delivery.id} failed after ${patch.attempts} attempt(s): ${outcome.error ?? `HTTP ${outcome.statusCode}`}`.slice(0, 300);
    return store.transaction(async (tx) => {
      const recorded = await tx.notificationDeliveries.recordAttempt(delivery.id, delivery.attempts, patch);
      if (!recorded) return null;
      const paused = await tx.notificationChannels.update(channel.userId, channel.id, { status: 'paused', pausedReason: reason, updatedAt: now });
      if (paused && channel.status === 'active') {
        await recordNotificationEvent(tx, {
          type: 'channel.paused',
          userId: channel.userId,
          subject: { kind: 'channel', id: channel.id },
          summary: `Notification channel "${channel.label}" (${channel.kind}) was paused: its deliveries keep failing`,
          data: { channelId: channel.id, kind: channel.kind, label: channel.label, reason },
          time: now,
          exceptChannelId: channel.id,
          dedupeKey: `channel.paused:${channel.id}:${delivery.id}`,
        });
      }
      return recorded;
    });
  }

  return async (delivery, { retry, signal }) => {
    const release = () => store.notificationDeliveries.recordAttempt(delivery.id, delivery.attempts, { leaseUntil: null });
    const channel = await store.notificationChannels.get(delivery.channelId);
    if (!channel) return null;
    if (retry && channel.status !== 'active') return release();
    const payload = await deliveryPayload(store, delivery);
    const attempts = delivery.attempts + 1;
    let outcome: SendOutcome;
    if (!payload) {
      outcome = { ok: false, statusCode: null, error: 'The event no longer exists', retryable: false };
    } else {
      const target = await openChannelTarget(secretBox, channel);
      const idempotencyKey = delivery.digestKey === null ? delivery.eventId : delivery.id;
      outcome = await sender.send({ channelId: channel.id, target, payload, idempotencyKey, attempt: attempts }, signal);
    }
    // Closing: the attempt was cut short by us, not by the receiver; leave it for the next node or start.
    if (signal?.aborted) return release();
    const now = clock.now();
    const base: NotificationDeliveryPatch = { attempts, lastStatusCode: outcome.statusCode, leaseUntil: null, updatedAt: now.toISOString() };
    const fields = { deliveryId: delivery.id, channelId: channel.id, eventType: delivery.eventType, attempts, statusCode: outcome.statusCode };
    if (outcome.ok) {
      logger.info('Notification delivered', fields);
      return store.notificationDeliveries.recordAttempt(delivery.id, delivery.attempts, {
        ...base,
        status: 'delivered',
        lastError: null,
        nextAttemptAt: null,
        deliveredAt: now.toISOString(),
      });
    }
    const next =
      retry && outcome.retryable
        ? nextAttemptAt(settings.retry, { attemptsMade: attempts, createdAt: delivery.createdAt, now, retryAfterMs: outcome.retryAfterMs })
        : null;
    if (next) {
      logger.warn('Notification attempt failed; retrying', { ...fields, error: outcome.error, nextAttemptAt: next.toISOString() });
      return store.notificationDeliveries.recordAttempt(delivery.id, delivery.attempts, {
        ...base,
        lastError: outcome.error,
        nextAttemptAt: next.toISOString(),
      });
    }
    logger.warn('Notification delivery failed', { ...fields, error: outcome.error });
    const failed: NotificationDeliveryPatch = { ...base, status: 'failed', lastError: outcome.error, nextAttemptAt: null };
    if (!retry) return store.notificationDeliveries.recordAttempt(delivery.id, delivery.attempts, failed);
    return pauseChannel(channel, delivery, failed, outcome);
  };
}
