import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import { columnsOf } from './columns-of.js';

/** The record summary's columns on `listings`: search sorts and filters by them (all nullable: a listing without a record). */
const SUMMARY_COLUMNS = [
  ['forward_return', 'float'],
  ['forward_sharpe', 'float'],
  ['dsr', 'float'],
  ['forward_days', 'float'],
  ['badge_rank', 'integer'],
  // The whole summary as JSON, as it is read back.
  ['record_summary', 'text'],
] as const;

/** The sort keys' columns, each with its index for `search`. */
const SORT_COLUMNS = ['forward_return', 'forward_sharpe', 'dsr', 'forward_days'] as const;

/**
 * Verified listings: the `verification_records` table (one row per listed version's record:
 * JSON text for identity, backtest, forward without its points, search effort and error; the
 * forward points as bytes, BLOB / bytea), and the current record's summary on `listings`
 * (real columns for the sort keys and the badge rank, plus the whole summary as JSON).
 *
 * Records name their listing without a foreign key: they are never deleted with it. Search by a
 * record key orders by (key desc nulls last, created_at desc, id desc) among listed listings,
 * which a partial index per key serves (SQLite sorts nulls last in a descending order already and
 * takes no `nulls last` in an index). As in the earlier migrations every statement completes
 * when run again after stopping half-way, and on PostgreSQL ordered text columns compare
 * bytewise (`collate "C"`).
 */
export function verificationRecordsMigration(dialect: DialectName): Migration {
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
  const float = dialect === 'postgres' ? 'double precision' : 'real';
  const nullsLast = dialect === 'postgres' ? sql` nulls last` : sql``;

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('verification_records')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('listing_id', 'text', (col) => ordered(col).notNull())
        .addColumn('seller_id', 'text', (col) => col.notNull())
        .addColumn('strategy_id', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('error', 'text')
        .addColumn('identity', 'text', (col) => col.notNull())
        .addColumn('backtest', 'text')
        .addColumn('forward', 'text', (col) => col.notNull())
        .addColumn('forward_points', bytes)
        .addColumn('search_effort', 'text', (col) => col.notNull())
        .addColumn('badge', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('superseded_at', 'text')
        .addColumn('updated_at', 'text', (col) => ordered(col).notNull())
        .execute();
      // listByListing, newest first.
      await db.schema
        .createIndex('verification_records_listing_id_created_at_id_idx')
        .ifNotExists()
        .on('verification_records')
        .columns(['listing_id', 'created_at desc', 'id desc'])
        .execute();
      // listCurrent: current records by status, oldest first; superseded ones leave the index.
      await db.schema
        .createIndex('verification_records_current_idx')
        .ifNotExists()
        .on('verification_records')
        .columns(['status', 'created_at', 'id'])
        .where(sql.ref('superseded_at'), 'is', null)
        .execute();

      const existing = await columnsOf(db, dialect, 'listings');
      for (const [name, type] of SUMMARY_COLUMNS) {
        if (existing.has(name)) continue;
        await sql`alter table listings add column ${sql.ref(name)} ${sql.raw(type === 'float' ? float : type)}`.execute(db);
      }
      for (const column of SORT_COLUMNS) {
        await sql`create index if not exists ${sql.ref(`listings_${column}_idx`)} on listings (${sql.ref(column)} desc${nullsLast}, created_at desc, id desc) where status = 'listed'`.execute(
          db,
        );
      }
      // The evidence filters alone (newest first among listings with at least a badge rank).
      await sql`create index if not exists listings_badge_rank_idx on listings (badge_rank, created_at desc, id desc) where status = 'listed'`.execute(db);
    },

    async down(db: Kysely<any>) {
      await db.schema.dropIndex('listings_badge_rank_idx').ifExists().execute();
      for (const column of SORT_COLUMNS) await db.schema.dropIndex(`listings_${column}_idx`).ifExists().execute();
      for (const [name] of [...SUMMARY_COLUMNS].reverse()) await db.schema.alterTable('listings').dropColumn(name).execute();
      await db.schema.dropTable('verification_records').ifExists().execute();
    },
  };
}
