import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * The initial tables. Every statement is `if not exists`, so a run that stopped half-way (SQLite
 * runs migrations without a transaction) completes when run again.
 *
 * On PostgreSQL, ids and timestamps compare bytewise (`collate "C"`), so lists are ordered as
 * on SQLite and in memory whatever the database's default collation is.
 */
export function initialMigration(dialect: DialectName): Migration {
  /** A text column that sorts bytewise. */
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .ifNotExists()
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .ifNotExists()
        .addColumn('hash', 'text', (col) => col.primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('api_keys_user_id_idx').ifNotExists().on('api_keys').column('user_id').execute();

      await db.schema
        .createTable('strategies')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('description', 'text', (col) => col.notNull())
        .addColumn('market_type', 'text', (col) => col.notNull())
        .addColumn('version', 'integer', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('strategies_user_id_created_at_id_idx')
        .ifNotExists()
        .on('strategies')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();

      await db.schema
        .createTable('strategy_versions')
        .ifNotExists()
        .addColumn('strategy_id', 'text', (col) => col.notNull().references('strategies.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('version', 'integer', (col) => col.notNull())
        .addColumn('source', 'text', (col) => col.notNull())
        .addColumn('source_sha256', 'text', (col) => col.notNull())
        .addColumn('size_bytes', 'integer', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('strategy_versions_pkey', ['strategy_id', 'version'])
        .execute();

      await db.schema
        .createTable('deployments')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('strategy_id', 'text', (col) => col.notNull())
        .addColumn('strategy_version', 'integer', (col) => col.notNull())
        .addColumn('credential_id', 'text', (col) => col.notNull())
        .addColumn('symbols', 'text', (col) => col.notNull())
        .addColumn('params', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addColumn('started_at', 'text')
        .addColumn('stopped_at', 'text')
        .execute();
      await db.schema
        .createIndex('deployments_user_id_created_at_id_idx')
        .ifNotExists()
        .on('deployments')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();
      await db.schema.createIndex('deployments_user_id_status_idx').ifNotExists().on('deployments').columns(['user_id', 'status']).execute();
    },

    async down(db: Kysely<any>) {
      for (const table of ['deployments', 'strategy_versions', 'strategies', 'api_keys', 'users']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
