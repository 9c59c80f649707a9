import type { NotificationChannelRecord, NotificationDeliveryRecord, NotificationEventRecord, StoreRepositories } from '../ports/store.js';
import { definedFields, newestFirst, stableChange } from './memory-helpers.js';

/** The notifications part of the memory store's state: channels, the event outbox and deliveries. */
export interface NotificationsState {
  channels: Map<string, NotificationChannelRecord>;
  events: Map<string, NotificationEventRecord>;
  deliveries: Map<string, NotificationDeliveryRecord>;
  /** Delivery id by its dedupe key (see `dedupeKey`): the SQL stores' unique index. */
  deliveryKeys: Map<string, string>;
}

export const emptyNotificationsState = (): NotificationsState => ({
  channels: new Map(),
  events: new Map(),
  deliveries: new Map(),
  deliveryKeys: new Map(),
});

/** Maps copied, records shared (records are replaced, never mutated). */
export const cloneNotificationsState = (s: NotificationsState): NotificationsState => ({
  channels: new Map(s.channels),
  events: new Map(s.events),
  deliveries: new Map(s.deliveries),
  deliveryKeys: new Map(s.deliveryKeys),
});

type Change<T> = (state: NotificationsState) => T;
type NotificationRepositories = Pick<StoreRepositories, 'notificationChannels' | 'notificationEvents' | 'notificationDeliveries'>;

/** JSON fields go through JSON, as in the SQL stores, so that what is not JSON shows up in tests. */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const copyChannel = (c: NotificationChannelRecord): NotificationChannelRecord => ({ ...c, events: [...c.events], secrets: new Uint8Array(c.secrets) });
const copyEvent = (e: NotificationEventRecord): NotificationEventRecord => ({ ...e, data: jsonCopy(e.data) });
const copyDelivery = (d: NotificationDeliveryRecord): NotificationDeliveryRecord => ({ ...d });

/** A digest is unique by its key; a delivery of one event by (channel, event). */
const dedupeKey = (d: Pick<NotificationDeliveryRecord, 'digestKey' | 'channelId' | 'eventId'>) =>
  d.digestKey !== null ? `digest|${d.digestKey}` : `event|${d.channelId}|${d.eventId}`;

const byCreatedThenId = <T extends { createdAt: string; id: string }>(a: T, b: T) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1;

const byDueThenId = (a: NotificationDeliveryRecord, b: NotificationDeliveryRecord) => {
  const x = a.nextAttemptAt ?? '';
  const y = b.nextAttemptAt ?? '';
  return x === y ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : x < y ? -1 : 1;
};

/**
 * The notification repositories over `get()`'s state; every write goes through `write` (which,
 * in a transaction, applies it to the draft and replays it at commit). Writes whose outcome
 * depends on the state are `stableChange`s: a commit whose outcome changed meanwhile fails.
 */
export function memoryNotificationRepositories(get: () => NotificationsState, write: <T>(change: Change<T>) => T): NotificationRepositories {
  const ownChannel = (userId: string, id: string) => {
    const c = get().channels.get(id);
    return c && c.userId === userId ? c : undefined;
  };
  return {
    notificationChannels: {
      async insert(channel) {
        const value = copyChannel(channel);
        write((s) => {
          if (s.channels.has(value.id)) throw new Error('Duplicate notification channel id');
          s.channels.set(value.id, value);
        });
      },
      async findById(userId, id) {
        const c = ownChannel(userId, id);
        return c ? copyChannel(c) : null;
      },
      async get(id) {
        const c = get().channels.get(id);
        return c ? copyChannel(c) : null;
      },
      async list(userId, page) {
        return newestFirst(
          [...get().channels.values()].filter((c) => c.userId === userId),
          page,
        ).map(copyChannel);
      },
      async listAll(userId) {
        return newestFirst(
          [...get().channels.values()].filter((c) => c.userId === userId),
          { limit: Number.MAX_SAFE_INTEGER },
        ).map(copyChannel);
      },
      async count(userId) {
        let n = 0;
        for (const c of get().channels.values()) if (c.userId === userId) n++;
        return n;
      },
      async update(userId, id, patch) {
        const defined = definedFields(patch);
        if (defined.events) defined.events = [...defined.events];
        if (defined.secrets) defined.secrets = new Uint8Array(defined.secrets);
        const updated = write(
          stableChange(
            (s: NotificationsState) => {
              const c = s.channels.get(id);
              if (!c || c.userId !== userId) return null;
              const next: NotificationChannelRecord = { ...c, ...defined };
              s.channels.set(id, next);
              return next;
            },
            (r) => r !== null,
          ),
        );
        return updated ? copyChannel(updated) : null;
      },
      async delete(userId, id) {
        return write(
          stableChange(
            (s: NotificationsState) => {
              const c = s.channels.get(id);
              if (!c || c.userId !== userId) return false;
              s.channels.delete(id);
              for (const [deliveryId, d] of [...s.deliveries]) {
                if (d.channelId !== id) continue;
                s.deliveries.delete(deliveryId);
                s.deliveryKeys.delete(dedupeKey(d));
              }
              return true;
            },
            (deleted) => deleted,
          ),
        );
      },
    },

    notificationEvents: {
      async insert(event) {
        const value = copyEvent(event);
        return write(
          stableChange(
            (s: NotificationsState) => {
              if (s.events.has(value.id)) return false;
              s.events.set(value.id, value);
              return true;
            },
            (inserted) => inserted,
          ),
        );
      },
      async findById(userId, id) {
        const e = get().events.get(id);
        return e && e.userId === userId ? copyEvent(e) : null;
      },
      async list(userId, page) {
        return newestFirst(
          [...get().events.values()].filter((e) => e.userId === userId),
          page,
        ).map(copyEvent);
      },
      async listUndispatched(limit) {
        return [...get().events.values()]
          .filter((e) => e.dispatchedAt === null)
          .sort(byCreatedThenId)
          .slice(0, Math.max(0, limit))
          .map(copyEvent);
      },
      async markDispatched(id, at) {
        return write(
          stableChange(
            (s: NotificationsState) => {
              const e = s.events.get(id);
              if (!e || e.dispatchedAt !== null) return false;
              s.events.set(id, { ...e, dispatchedAt: at });
              return true;
            },
            (marked) => marked,
          ),
        );
      },
    },

    notificationDeliveries: {
      async insert(delivery) {
        const value = copyDelivery(delivery);
        return write(
          stableChange(
            (s: NotificationsState) => {
              // As the SQL stores' INSERT ... ON CONFLICT DO NOTHING: any clash changes nothing.
              if (!s.channels.has(value.channelId)) throw new Error(`No notification channel ${value.channelId} for this delivery`);
              const key = dedupeKey(value);
              if (s.deliveries.has(value.id) || s.deliveryKeys.has(key)) return false;
              s.deliveries.set(value.id, value);
              s.deliveryKeys.set(key, value.id);
              return true;
            },
            (inserted) => inserted,
          ),
        );
      },
      async findById(userId, id) {
        const d = get().deliveries.get(id);
        return d && d.userId === userId ? copyDelivery(d) : null;
      },
      async get(id) {
        const d = get().deliveries.get(id);
        return d ? copyDelivery(d) : null;
      },
      async findByDigestKey(digestKey) {
        const id = get().deliveryKeys.get(`digest|${digestKey}`);
        const d = id === undefined ? undefined : get().deliveries.get(id);
        return d ? copyDelivery(d) : null;
      },
      async appendToDigest(id, eventId, at) {
        return write(
          stableChange(
            (s: NotificationsState) => {
              const d = s.deliveries.get(id);
              if (!d || d.status !== 'pending') return false;
              s.deliveries.set(id, { ...d, eventCount: d.eventCount + 1, lastEventId: eventId, updatedAt: at });
              return true;
            },
            (appended) => appended,
          ),
        );
      },
      async countRecent(channelId, floodKey, sinceIso) {
        let n = 0;
        for (const d of get().deliveries.values()) if (d.channelId === channelId && d.floodKey === floodKey && d.createdAt >= sinceIso) n++;
        return n;
      },
      async claimDue(nowIso, leaseUntilIso, limit) {
        // Decided and applied in one synchronous step, so concurrent callers never overlap.
        const claimed = write(
          stableChange(
            (s: NotificationsState) => {
              const due = [...s.deliveries.values()]
                .filter(
                  (d) =>
                    d.status === 'pending' &&
                    d.nextAttemptAt !== null &&
                    d.nextAttemptAt <= nowIso &&
                    (d.leaseUntil === null || d.leaseUntil < nowIso) &&
                    s.channels.get(d.channelId)?.status === 'active',
                )
                .sort(byDueThenId)
                .slice(0, Math.max(0, limit))
                .map((d) => ({ ...d, leaseUntil: leaseUntilIso }));
              for (const d of due) s.deliveries.set(d.id, d);
              return due;
            },
            (due) => due.map((d) => d.id).join(','),
          ),
        );
        return claimed.map(copyDelivery);
      },
      async recordAttempt(id, expectedAttempts, patch) {
        const defined = definedFields(patch);
        const updated = write(
          stableChange(
            (s: NotificationsState) => {
              const d = s.deliveries.get(id);
              if (!d || d.status !== 'pending' || d.attempts !== expectedAttempts) return null;
              const next: NotificationDeliveryRecord = { ...d, ...defined };
              s.deliveries.set(id, next);
              return next;
            },
            (r) => r !== null,
          ),
        );
        return updated ? copyDelivery(updated) : null;
      },
      async listByChannel(userId, channelId, page, filter = {}) {
        if (!ownChannel(userId, channelId)) return [];
        const rows = [...get().deliveries.values()].filter(
          (d) => d.channelId === channelId && d.userId === userId && (filter.status === undefined || d.status === filter.status),
        );
        return newestFirst(rows, page).map(copyDelivery);
      },
    },
  };
}
