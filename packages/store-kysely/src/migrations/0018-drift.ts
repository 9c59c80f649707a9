import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Drift reports (docs/drift.md): what each live or paper deployment recorded as it ran, and the
 * stored reports and alert thresholds.
 *
 * - `drift_candles`: one row per delivered candle, primary key (deployment_id, time, symbol), so
 *   a window of a deployment is one index range in the order it is listed; recorded once
 *   (`insert ... on conflict do nothing`).
 * - `drift_intents` and `drift_runs`: rows in the order they were recorded (`seq`: SQLite
 *   `integer primary key autoincrement`, PostgreSQL `bigserial`, as deployment logs); an intent's
 *   id is unique, which `on conflict (id) do nothing` relies on.
 * - `drift_reports`: one report per (deployment_id, window_key), the report as JSON text.
 * - `drift_thresholds`: one row per deployment, the thresholds as JSON text.
 *
 * Candle times are epoch milliseconds: `bigint` on PostgreSQL (read back as strings, turned into
 * numbers), `integer` (64-bit) on SQLite. Prices, volumes and equity are `double precision`.
 * Rows name their deployment without a foreign key; they are deleted with it by the service. As
 * in the earlier migrations every statement is `if not exists`, and on PostgreSQL ordered text
 * columns compare bytewise (`collate "C"`).
 */
export function driftMigration(dialect: DialectName): Migration {
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);
  const ms = dialect === 'postgres' ? 'bigint' : 'integer';
  const float = 'double precision';
  const seq = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement());
  const seqType = dialect === 'postgres' ? 'bigserial' : 'integer';

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('drift_candles')
        .ifNotExists()
        .addColumn('deployment_id', 'text', (col) => ordered(col).notNull())
        .addColumn('time', ms, (col) => col.notNull())
        .addColumn('symbol', 'text', (col) => ordered(col).notNull())
        .addColumn('open', float, (col) => col.notNull())
        .addColumn('high', float, (col) => col.notNull())
        .addColumn('low', float, (col) => col.notNull())
        .addColumn('close', float, (col) => col.notNull())
        .addColumn('volume', float, (col) => col.notNull())
        .addColumn('equity', float, (col) => col.notNull())
        .addColumn('recorded_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('drift_candles_pkey', ['deployment_id', 'time', 'symbol'])
        .execute();

      await db.schema
        .createTable('drift_intents')
        .ifNotExists()
        .addColumn('seq', seqType, seq)
        .addColumn('id', 'text', (col) => ordered(col).notNull())
        .addColumn('deployment_id', 'text', (col) => ordered(col).notNull())
        .addColumn('candle_time', ms, (col) => col.notNull())
        .addColumn('source', 'text', (col) => col.notNull())
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('symbol', 'text', (col) => col.notNull())
        .addColumn('side', 'text')
        .addColumn('type', 'text')
        .addColumn('quantity', float)
        .addColumn('size', float)
        .addColumn('price', float)
        .addColumn('reduce_only', 'integer', (col) => col.notNull())
        .addColumn('close_all', 'integer', (col) => col.notNull())
        .addColumn('tag', 'text')
        .addColumn('guest_id', 'text', (col) => col.notNull())
        .addColumn('recorded_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('drift_intents_id_idx').ifNotExists().unique().on('drift_intents').column('id').execute();
      // listIntents: a deployment's window, then in recorded order.
      await db.schema
        .createIndex('drift_intents_deployment_id_candle_time_idx')
        .ifNotExists()
        .on('drift_intents')
        .columns(['deployment_id', 'candle_time'])
        .execute();

      await db.schema
        .createTable('drift_runs')
        .ifNotExists()
        .addColumn('seq', seqType, seq)
        .addColumn('deployment_id', 'text', (col) => ordered(col).notNull())
        .addColumn('started_at', 'text', (col) => col.notNull())
        .addColumn('start_equity', float)
        .addColumn('resumed', 'integer', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('drift_runs_deployment_id_seq_idx').ifNotExists().on('drift_runs').columns(['deployment_id', 'seq']).execute();

      await db.schema
        .createTable('drift_reports')
        .ifNotExists()
        .addColumn('deployment_id', 'text', (col) => ordered(col).notNull())
        .addColumn('window_key', 'text', (col) => ordered(col).notNull())
        .addColumn('recorded_up_to', ms, (col) => col.notNull())
        .addColumn('report', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('drift_reports_pkey', ['deployment_id', 'window_key'])
        .execute();

      await db.schema
        .createTable('drift_thresholds')
        .ifNotExists()
        .addColumn('deployment_id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('thresholds', 'text', (col) => col.notNull())
        .execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('drift_thresholds').ifExists().execute();
      await db.schema.dropTable('drift_reports').ifExists().execute();
      await db.schema.dropTable('drift_runs').ifExists().execute();
      await db.schema.dropTable('drift_intents').ifExists().execute();
      await db.schema.dropTable('drift_candles').ifExists().execute();
    },
  };
}
