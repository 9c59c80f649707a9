import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Deployment logs: one row per line (system events and strategy `ctx.log` lines). Like the
 * earlier migrations every statement is `if not exists`, and on PostgreSQL ordered text columns
 * compare bytewise (`collate "C"`).
 *
 * `seq` is an auto-incremented integer that orders lines with equal timestamps in the order
 * they were appended (SQLite `integer primary key autoincrement`, PostgreSQL `bigserial`).
 * Lines are read by (deployment_id, timestamp, seq).
 */
export function deploymentLogsMigration(dialect: DialectName): Migration {
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('deployment_logs')
        .ifNotExists()
        .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (col) =>
          dialect === 'postgres' ? col.primaryKey() : col.primaryKey().autoIncrement(),
        )
        .addColumn('deployment_id', 'text', (col) => col.notNull())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('timestamp', 'text', (col) => ordered(col).notNull())
        .addColumn('level', 'text', (col) => col.notNull())
        .addColumn('message', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('deployment_logs_deployment_id_timestamp_seq_idx')
        .ifNotExists()
        .on('deployment_logs')
        .columns(['deployment_id', 'timestamp', 'seq'])
        .execute();
      // Recovery at start lists deployments by status.
      await db.schema.createIndex('deployments_status_created_at_idx').ifNotExists().on('deployments').columns(['status', 'created_at']).execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropIndex('deployments_status_created_at_idx').ifExists().execute();
      await db.schema.dropTable('deployment_logs').ifExists().execute();
    },
  };
}
