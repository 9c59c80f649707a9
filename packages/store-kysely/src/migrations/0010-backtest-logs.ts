import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/** Log lines written by one insert: five parameters each, well under SQLite's and PostgreSQL's limits. */
export const LOG_BATCH_ROWS = 500;

/**
 * A backtest's log lines (the strategy's `ctx.log` and `console` output), one row each, keyed by
 * (backtest_id, seq) and deleted with their backtest (foreign key, on delete cascade). Lines are
 * read by (backtest_id, timestamp, seq), the order of `listLogs`. As in the earlier migrations
 * every statement is `if not exists`, and on PostgreSQL ordered text columns compare bytewise
 * (`collate "C"`).
 */
export function backtestLogsMigration(dialect: DialectName): Migration {
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('backtest_logs')
        .ifNotExists()
        .addColumn('backtest_id', 'text', (col) => ordered(col).notNull().references('backtests.id').onDelete('cascade'))
        .addColumn('seq', 'integer', (col) => col.notNull())
        .addColumn('timestamp', 'text', (col) => ordered(col).notNull())
        .addColumn('level', 'text', (col) => col.notNull())
        .addColumn('message', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('backtest_logs_pkey', ['backtest_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('backtest_logs_backtest_id_timestamp_seq_idx')
        .ifNotExists()
        .on('backtest_logs')
        .columns(['backtest_id', 'timestamp', 'seq'])
        .execute();
    },

    async down(db: Kysely<any>) {
      await db.schema.dropTable('backtest_logs').ifExists().execute();
    },
  };
}
