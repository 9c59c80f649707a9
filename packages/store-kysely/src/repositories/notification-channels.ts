import type { Insertable, Selectable, Updateable } from 'kysely';
import type { NotificationChannelPatch, NotificationChannelRecord, NotificationChannelRepository } from '@stratbox/core';
import type { NotificationChannelsTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

/** The bytes of `data` as a Buffer over the same memory (no copy), which both drivers bind as a BLOB / bytea. */
const asBuffer = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

function toRow(c: NotificationChannelRecord): Insertable<NotificationChannelsTable> {
  return {
    id: c.id,
    user_id: c.userId,
    kind: c.kind,
    label: c.label,
    events: JSON.stringify(c.events),
    min_severity: c.minSeverity,
    status: c.status,
    paused_reason: c.pausedReason,
    target: c.target,
    secrets: asBuffer(c.secrets),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

function toChannel(row: Selectable<NotificationChannelsTable>): NotificationChannelRecord {
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind as NotificationChannelRecord['kind'],
    label: row.label,
    events: JSON.parse(row.events) as string[],
    minSeverity: row.min_severity as NotificationChannelRecord['minSeverity'],
    status: row.status as NotificationChannelRecord['status'],
    pausedReason: row.paused_reason,
    target: row.target,
    // A plain Uint8Array of exactly the stored bytes (the drivers give a Buffer, maybe pooled).
    secrets: new Uint8Array(row.secrets),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns a patch sets; undefined fields are not given. */
function toUpdate(patch: NotificationChannelPatch): Updateable<NotificationChannelsTable> {
  const set: Updateable<NotificationChannelsTable> = {};
  if (patch.label !== undefined) set.label = patch.label;
  if (patch.events !== undefined) set.events = JSON.stringify(patch.events);
  if (patch.minSeverity !== undefined) set.min_severity = patch.minSeverity;
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.pausedReason !== undefined) set.paused_reason = patch.pausedReason;
  if (patch.target !== undefined) set.target = patch.target;
  if (patch.secrets !== undefined) set.secrets = asBuffer(patch.secrets);
  if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
  return set;
}

/** Notification channels; the sealed secrets are a BLOB / bytea, stored and returned byte for byte. */
export function createNotificationChannelRepository({ db }: QueryContext): NotificationChannelRepository {
  const findById = async (userId: string, id: string) => {
    const row = await db.selectFrom('notification_channels').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return row ? toChannel(row) : null;
  };
  return {
    async insert(channel) {
      await db.insertInto('notification_channels').values(toRow(channel)).execute();
    },

    findById,

    async get(id) {
      const row = await db.selectFrom('notification_channels').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toChannel(row) : null;
    },

    async list(userId, { limit, after }) {
      let query = db.selectFrom('notification_channels').selectAll().where('user_id', '=', userId);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toChannel);
    },

    async listAll(userId) {
      const rows = await db
        .selectFrom('notification_channels')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toChannel);
    },

    async count(userId) {
      const row = await db
        .selectFrom('notification_channels')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async update(userId, id, patch) {
      const set = toUpdate(patch);
      if (Object.keys(set).length === 0) return findById(userId, id);
      const row = await db.updateTable('notification_channels').set(set).where('id', '=', id).where('user_id', '=', userId).returningAll().executeTakeFirst();
      return row ? toChannel(row) : null;
    },

    async delete(userId, id) {
      // Its deliveries go with it (foreign key, on delete cascade).
      const result = await db.deleteFrom('notification_channels').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
