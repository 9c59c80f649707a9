import { SEVERITY_RANK, userEventsChannel } from '@stratbox/contract';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { Logger } from '../ports/logger.js';
import type { NotificationChannelRecord, NotificationEventRecord, Store, StoreRepositories } from '../ports/store.js';
import { newId } from '../util/ids.js';
import { digestDueAt, digestKeyOf, minuteStartOf } from './delivery-payload.js';
import type { NotificationSettings } from './notification-settings.js';
import { toEventView } from './notification-views.js';

export interface NotificationDispatcherDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  settings: Pick<NotificationSettings, 'perMinute'>;
}

/** Whether a channel takes an event: its types and minimum severity (`channel.paused` reaches every other channel). */
export function channelTakes(channel: NotificationChannelRecord, event: NotificationEventRecord): boolean {
  if (event.onlyChannelId !== null) return channel.id === event.onlyChannelId;
  if (channel.status !== 'active' || channel.id === event.exceptChannelId) return false;
  if (event.type === 'channel.paused') return true;
  const typeMatches = channel.events.includes('*') || channel.events.includes(event.type);
  return typeMatches && SEVERITY_RANK[event.severity] >= SEVERITY_RANK[channel.minSeverity];
}

/**
 * Fans the outbox out: each event not yet dispatched becomes one delivery per channel of its
 * user that takes it, in one transaction with marking it dispatched (a compare-and-set, so of
 * several nodes one fans an event out), and is then published on `user:<id>:events`.
 *
 * Flood control, per channel and kind of event (same type, same record) and UTC minute of
 * dispatch: the first `perMinute` are delivered one by one; the rest are counted into one
 * digest delivery, sent when the minute ends. Nothing is dropped.
 */
export function createNotificationDispatcher({ store, clock, logger, events, settings }: NotificationDispatcherDeps) {
  async function deliverTo(tx: StoreRepositories, channel: NotificationChannelRecord, event: NotificationEventRecord, now: Date): Promise<void> {
    const nowIso = now.toISOString();
    const floodKey = `${event.type}|${event.subjectId}`;
    const minute = minuteStartOf(now);
    const base = {
      userId: event.userId,
      channelId: channel.id,
      eventId: event.id,
      eventType: event.type,
      floodKey,
      eventCount: 1,
      lastEventId: event.id,
      status: 'pending' as const,
      attempts: 0,
      leaseUntil: null,
      lastStatusCode: null,
      lastError: null,
      createdAt: nowIso,
      updatedAt: nowIso,
      deliveredAt: null,
    };
    const single = () => tx.notificationDeliveries.insert({ ...base, id: newId('notificationDelivery'), digestKey: null, nextAttemptAt: nowIso });
    if (event.onlyChannelId !== null || (await tx.notificationDeliveries.countRecent(channel.id, floodKey, minute.toISOString())) < settings.perMinute) {
      await single();
      return;
    }
    const digestKey = digestKeyOf(channel.id, floodKey, minute);
    const digest = await tx.notificationDeliveries.findByDigestKey(digestKey);
    if (digest) {
      if (!(await tx.notificationDeliveries.appendToDigest(digest.id, event.id, nowIso))) await single();
      return;
    }
    await tx.notificationDeliveries.insert({ ...base, id: newId('notificationDelivery'), digestKey, nextAttemptAt: digestDueAt(digestKey).toISOString() });
  }

  /**
   * Fans out `batch` in one transaction (one commit for many events: the outbox's cost under a
   * storm), users locked in id order so that nodes never wait on each other in a cycle. Returns
   * the events this call dispatched (another node may have taken some).
   */
  async function fanOutBatch(batch: readonly NotificationEventRecord[]): Promise<NotificationEventRecord[]> {
    const now = clock.now();
    const ordered = [...batch].sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
    return store.transaction(async (tx) => {
      const channelsOf = new Map<string, NotificationChannelRecord[]>();
      const mine: NotificationEventRecord[] = [];
      for (const event of ordered) {
        let channels = channelsOf.get(event.userId);
        if (!channels) {
          await tx.users.lock(event.userId);
          channels = await tx.notificationChannels.listAll(event.userId);
          channelsOf.set(event.userId, channels);
        }
        if (!(await tx.notificationEvents.markDispatched(event.id, now.toISOString()))) continue;
        for (const channel of channels) {
          if (channelTakes(channel, event)) await deliverTo(tx, channel, event, now);
        }
        mine.push(event);
      }
      return mine;
    });
  }

  function publish(events_: readonly NotificationEventRecord[]) {
    for (const event of events_) if (event.onlyChannelId === null) events.publish(userEventsChannel(event.userId), toEventView(event));
  }

  return {
    /**
     * Fans out up to `limit` waiting events, oldest first, in one transaction; when that fails,
     * one by one, so that one bad event never holds back the others. How many this call dispatched.
     */
    async dispatchPending(limit = 200): Promise<number> {
      const batch = await store.notificationEvents.listUndispatched(limit);
      if (batch.length === 0) return 0;
      try {
        const mine = await fanOutBatch(batch);
        publish(mine);
        return mine.length;
      } catch (error) {
        logger.warn('Dispatching a batch of notification events failed; dispatching them one by one', {
          events: batch.length,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      let dispatched = 0;
      for (const event of batch) {
        try {
          const mine = await fanOutBatch([event]);
          publish(mine);
          dispatched += mine.length;
        } catch (error) {
          logger.error('Dispatching a notification event failed; it stays in the outbox', {
            eventId: event.id,
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
      return dispatched;
    },
  };
}

export type NotificationDispatcher = ReturnType<typeof createNotificationDispatcher>;
