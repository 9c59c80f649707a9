import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Notifications: a user's channels, the event outbox and the deliveries of events to channels.
 * A channel's sealed secrets are bytes (BLOB / bytea); its event filter and an event's data are
 * JSON text. A delivery belongs to its channel and is deleted with it (foreign key, on delete
 * cascade); it names its event without a foreign key (a digest names only its first and last).
 *
 * Fan-out is idempotent through two unique indexes, which `insert ... on conflict do nothing`
 * relies on: one delivery per (channel, event) among deliveries that are not digests, and one
 * digest per `digest_key`. As in the earlier migrations every statement is `if not exists`, and
 * on PostgreSQL ordered text columns (ids, timestamps compared or sorted) compare bytewise
 * (`collate "C"`).
 */
export function notificationsMigration(dialect: DialectName): Migration {
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('notification_channels')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('label', 'text', (col) => col.notNull())
        .addColumn('events', 'text', (col) => col.notNull())
        .addColumn('min_severity', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('paused_reason', 'text')
        .addColumn('target', 'text', (col) => col.notNull())
        .addColumn('secrets', bytes, (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('notification_channels_user_id_created_at_id_idx')
        .ifNotExists()
        .on('notification_channels')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();

      await db.schema
        .createTable('notification_events')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('severity', 'text', (col) => col.notNull())
        .addColumn('time', 'text', (col) => col.notNull())
        .addColumn('subject_kind', 'text', (col) => col.notNull())
        .addColumn('subject_id', 'text', (col) => col.notNull())
        .addColumn('summary', 'text', (col) => col.notNull())
        .addColumn('data', 'text', (col) => col.notNull())
        .addColumn('only_channel_id', 'text')
        .addColumn('except_channel_id', 'text')
        .addColumn('dispatched_at', 'text')
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .execute();
      // The user's list, newest first.
      await db.schema
        .createIndex('notification_events_user_id_created_at_id_idx')
        .ifNotExists()
        .on('notification_events')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();
      // listUndispatched: the outbox, oldest first; dispatched events leave the index.
      await db.schema
        .createIndex('notification_events_undispatched_idx')
        .ifNotExists()
        .on('notification_events')
        .columns(['created_at', 'id'])
        .where(sql.ref('dispatched_at'), 'is', null)
        .execute();

      await db.schema
        .createTable('notification_deliveries')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('channel_id', 'text', (col) => ordered(col).notNull().references('notification_channels.id').onDelete('cascade'))
        .addColumn('event_id', 'text', (col) => col.notNull())
        .addColumn('event_type', 'text', (col) => col.notNull())
        .addColumn('flood_key', 'text', (col) => col.notNull())
        .addColumn('digest_key', 'text', (col) => col.unique())
        .addColumn('event_count', 'integer', (col) => col.notNull())
        .addColumn('last_event_id', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull())
        .addColumn('next_attempt_at', 'text', (col) => ordered(col))
        .addColumn('lease_until', 'text', (col) => ordered(col))
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addColumn('delivered_at', 'text')
        .execute();
      // One delivery of an event per channel (digests are unique by their key instead).
      await db.schema
        .createIndex('notification_deliveries_channel_id_event_id_key')
        .ifNotExists()
        .unique()
        .on('notification_deliveries')
        .columns(['channel_id', 'event_id'])
        .where(sql.ref('digest_key'), 'is', null)
        .execute();
      // claimDue: pending deliveries by when they are due.
      await db.schema
        .createIndex('notification_deliveries_status_next_attempt_at_idx')
        .ifNotExists()
        .on('notification_deliveries')
        .columns(['status', 'next_attempt_at', 'id'])
        .execute();
      // countRecent: a channel's deliveries of one kind in the last minute.
      await db.schema
        .createIndex('notification_deliveries_flood_idx')
        .ifNotExists()
        .on('notification_deliveries')
        .columns(['channel_id', 'flood_key', 'created_at'])
        .execute();
      // listByChannel, newest first.
      await db.schema
        .createIndex('notification_deliveries_channel_id_created_at_id_idx')
        .ifNotExists()
        .on('notification_deliveries')
        .columns(['channel_id', 'created_at desc', 'id desc'])
        .execute();
    },

    async down(db: Kysely<any>) {
      for (const table of ['notification_deliveries', 'notification_events', 'notification_channels']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
