import type { Insertable, Selectable, Updateable } from 'kysely';
import type { NotificationDeliveryPatch, NotificationDeliveryRecord, NotificationDeliveryRepository } from '@stratbox/core';
import type { NotificationDeliveriesTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

function toRow(d: NotificationDeliveryRecord): Insertable<NotificationDeliveriesTable> {
  return {
    id: d.id,
    user_id: d.userId,
    channel_id: d.channelId,
    event_id: d.eventId,
    event_type: d.eventType,
    flood_key: d.floodKey,
    digest_key: d.digestKey,
    event_count: d.eventCount,
    last_event_id: d.lastEventId,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.nextAttemptAt,
    lease_until: d.leaseUntil,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    delivered_at: d.deliveredAt,
  };
}

function toDelivery(row: Selectable<NotificationDeliveriesTable>): NotificationDeliveryRecord {
  return {
    id: row.id,
    userId: row.user_id,
    channelId: row.channel_id,
    eventId: row.event_id,
    eventType: row.event_type as NotificationDeliveryRecord['eventType'],
    floodKey: row.flood_key,
    digestKey: row.digest_key,
    eventCount: Number(row.event_count),
    lastEventId: row.last_event_id,
    status: row.status as NotificationDeliveryRecord['status'],
    attempts: Number(row.attempts),
    nextAttemptAt: row.next_attempt_at,
    leaseUntil: row.lease_until,
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deliveredAt: row.delivered_at,
  };
}

/** The columns a patch sets; undefined fields are not given. */
function toUpdate(patch: NotificationDeliveryPatch): Updateable<NotificationDeliveriesTable> {
  const set: Updateable<NotificationDeliveriesTable> = {};
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.attempts !== undefined) set.attempts = patch.attempts;
  if (patch.nextAttemptAt !== undefined) set.next_attempt_at = patch.nextAttemptAt;
  if (patch.leaseUntil !== undefined) set.lease_until = patch.leaseUntil;
  if (patch.lastStatusCode !== undefined) set.last_status_code = patch.lastStatusCode;
  if (patch.lastError !== undefined) set.last_error = patch.lastError;
  if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
  if (patch.deliveredAt !== undefined) set.delivered_at = patch.deliveredAt;
  return set;
}

/** Oldest due first, then by id (RETURNING gives rows in no order). */
const byDue = (a: NotificationDeliveryRecord, b: NotificationDeliveryRecord) => {
  const x = a.nextAttemptAt ?? '';
  const y = b.nextAttemptAt ?? '';
  return x === y ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : x < y ? -1 : 1;
};

/**
 * Deliveries of events to channels. Inserts are idempotent through the unique indexes of
 * migration 0016; compare-and-sets are single conditional UPDATEs (rows affected); claims are
 * one UPDATE over a locked, skip-locked selection on PostgreSQL (on SQLite one statement runs
 * alone on the one connection, and transactions are serialized whole).
 */
export function createNotificationDeliveryRepository({ db, dialect }: QueryContext): NotificationDeliveryRepository {
  return {
    async insert(delivery) {
      const result = await db
        .insertInto('notification_deliveries')
        .values(toRow(delivery))
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async findById(userId, id) {
      const row = await db.selectFrom('notification_deliveries').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return row ? toDelivery(row) : null;
    },

    async get(id) {
      const row = await db.selectFrom('notification_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toDelivery(row) : null;
    },

    async findByDigestKey(digestKey) {
      const row = await db.selectFrom('notification_deliveries').selectAll().where('digest_key', '=', digestKey).executeTakeFirst();
      return row ? toDelivery(row) : null;
    },

    async appendToDigest(id, eventId, at) {
      const result = await db
        .updateTable('notification_deliveries')
        .set((eb) => ({ event_count: eb('event_count', '+', 1), last_event_id: eventId, updated_at: at }))
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async countRecent(channelId, floodKey, sinceIso) {
      const row = await db
        .selectFrom('notification_deliveries')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('channel_id', '=', channelId)
        .where('flood_key', '=', floodKey)
        .where('created_at', '>=', sinceIso)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async claimDue(nowIso, leaseUntilIso, limit) {
      if (limit <= 0) return [];
      const rows = await db
        .updateTable('notification_deliveries')
        .set({ lease_until: leaseUntilIso })
        .where('id', 'in', (eb) => {
          const due = eb
            .selectFrom('notification_deliveries as d')
            .innerJoin('notification_channels as c', 'c.id', 'd.channel_id')
            .select('d.id')
            .where('d.status', '=', 'pending')
            .where('d.next_attempt_at', '<=', nowIso)
            .where((w) => w.or([w('d.lease_until', 'is', null), w('d.lease_until', '<', nowIso)]))
            .where('c.status', '=', 'active')
            .orderBy('d.next_attempt_at')
            .orderBy('d.id')
            .limit(limit);
          // Lock the chosen deliveries (not their channels) and pass over those another claimer holds.
          return dialect === 'postgres' ? due.forUpdate('d').skipLocked() : due;
        })
        .returningAll()
        .execute();
      return rows.map(toDelivery).sort(byDue);
    },

    async recordAttempt(id, expectedAttempts, patch) {
      const set = toUpdate(patch);
      const row = await db
        .updateTable('notification_deliveries')
        // An empty patch still compares and sets (attempts to what it is).
        .set(Object.keys(set).length > 0 ? set : { attempts: expectedAttempts })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('attempts', '=', expectedAttempts)
        .returningAll()
        .executeTakeFirst();
      return row ? toDelivery(row) : null;
    },

    async listByChannel(userId, channelId, { limit, after }, filter = {}) {
      let query = db.selectFrom('notification_deliveries').selectAll().where('channel_id', '=', channelId).where('user_id', '=', userId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toDelivery);
    },
  };
}
