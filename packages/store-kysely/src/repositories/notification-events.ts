import type { Insertable, Selectable } from 'kysely';
import type { NotificationEventRecord, NotificationEventRepository } from '@stratbox/core';
import type { NotificationEventsTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

function toRow(e: NotificationEventRecord): Insertable<NotificationEventsTable> {
  return {
    id: e.id,
    user_id: e.userId,
    type: e.type,
    severity: e.severity,
    time: e.time,
    subject_kind: e.subjectKind,
    subject_id: e.subjectId,
    summary: e.summary,
    data: JSON.stringify(e.data),
    only_channel_id: e.onlyChannelId,
    except_channel_id: e.exceptChannelId,
    dispatched_at: e.dispatchedAt,
    created_at: e.createdAt,
  };
}

function toEvent(row: Selectable<NotificationEventsTable>): NotificationEventRecord {
  return {
    id: row.id,
    userId: row.user_id,
    type: row.type as NotificationEventRecord['type'],
    severity: row.severity as NotificationEventRecord['severity'],
    time: row.time,
    subjectKind: row.subject_kind as NotificationEventRecord['subjectKind'],
    subjectId: row.subject_id,
    summary: row.summary,
    data: JSON.parse(row.data) as Record<string, unknown>,
    onlyChannelId: row.only_channel_id,
    exceptChannelId: row.except_channel_id,
    dispatchedAt: row.dispatched_at,
    createdAt: row.created_at,
  };
}

/** The notification outbox: events written once by id, dispatched once (a conditional UPDATE). */
export function createNotificationEventRepository({ db }: QueryContext): NotificationEventRepository {
  return {
    async insert(event) {
      // Any conflict (only the primary key can) changes nothing: an emitter that runs twice writes once.
      const result = await db
        .insertInto('notification_events')
        .values(toRow(event))
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async findById(userId, id) {
      const row = await db.selectFrom('notification_events').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return row ? toEvent(row) : null;
    },

    async list(userId, { limit, after }) {
      let query = db.selectFrom('notification_events').selectAll().where('user_id', '=', userId);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toEvent);
    },

    async listUndispatched(limit) {
      if (limit <= 0) return [];
      const rows = await db
        .selectFrom('notification_events')
        .selectAll()
        .where('dispatched_at', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toEvent);
    },

    async markDispatched(id, at) {
      // One conditional UPDATE: of concurrent callers the row lock lets exactly one match.
      const result = await db
        .updateTable('notification_events')
        .set({ dispatched_at: at })
        .where('id', '=', id)
        .where('dispatched_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
