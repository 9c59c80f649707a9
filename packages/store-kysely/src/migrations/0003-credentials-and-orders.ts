import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Exchange credentials and live orders. Like 0001 and 0002, every statement is `if not exists`,
 * so a run that stopped half-way completes when run again, and on PostgreSQL the columns rows
 * are ordered by compare bytewise (`collate "C"`).
 *
 * The sealed secrets of a credential are bytes (BLOB on SQLite, bytea on PostgreSQL). Booleans
 * are integers 0/1 on both. Order quantities and prices are `double precision`. An order's
 * `client_order_id` is unique: inserting an order twice under one client order id fails, which
 * is what keeps an order from being sent twice.
 */
export function credentialsAndOrdersMigration(dialect: DialectName): Migration {
  /** A text column that sorts bytewise. */
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('credentials')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('exchange', 'text', (col) => col.notNull())
        .addColumn('label', 'text', (col) => col.notNull())
        .addColumn('testnet', 'integer', (col) => col.notNull())
        .addColumn('key_hint', 'text', (col) => col.notNull())
        .addColumn('secrets', bytes, (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .execute();
      await db.schema
        .createIndex('credentials_user_id_created_at_id_idx')
        .ifNotExists()
        .on('credentials')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();

      await db.schema
        .createTable('orders')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('deployment_id', 'text', (col) => col.notNull())
        .addColumn('client_order_id', 'text', (col) => col.notNull().unique())
        .addColumn('exchange_order_id', 'text')
        .addColumn('symbol', 'text', (col) => col.notNull())
        .addColumn('side', 'text', (col) => col.notNull())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('quantity', 'double precision', (col) => col.notNull())
        .addColumn('price', 'double precision')
        .addColumn('stop_price', 'double precision')
        .addColumn('reduce_only', 'integer', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('filled_quantity', 'double precision', (col) => col.notNull())
        .addColumn('average_price', 'double precision')
        .addColumn('fee', 'double precision', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      // listByDeployment (newest first) and listOpen (oldest first, filtered by status).
      await db.schema
        .createIndex('orders_deployment_id_created_at_id_idx')
        .ifNotExists()
        .on('orders')
        .columns(['deployment_id', 'created_at desc', 'id desc'])
        .execute();
      await db.schema.createIndex('orders_deployment_id_status_idx').ifNotExists().on('orders').columns(['deployment_id', 'status']).execute();
    },

    async down(db: Kysely<any>) {
      for (const table of ['orders', 'credentials']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
