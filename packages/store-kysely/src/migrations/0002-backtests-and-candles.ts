import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Backtests, their results, and candles packed by day. Like 0001, every statement is
 * `if not exists` (or idempotent), so a run that stopped half-way completes when run again, and
 * on PostgreSQL the columns rows are ordered by (ids, timestamps, candle keys) compare bytewise
 * (`collate "C"`).
 *
 * Numbers that may be fractional are `double precision` (PostgreSQL's `real` is float4); counts
 * are `integer`. Arrays, maps, fees, error and results are JSON text. Candle data is a BLOB on
 * SQLite and bytea on PostgreSQL.
 */
export function backtestsAndCandlesMigration(dialect: DialectName): Migration {
  /** A text column that sorts bytewise. */
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('backtests')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('strategy_id', 'text', (col) => col.notNull())
        .addColumn('strategy_version', 'integer', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('progress', 'double precision', (col) => col.notNull())
        .addColumn('processed_bars', 'integer', (col) => col.notNull())
        .addColumn('total_bars', 'integer', (col) => col.notNull())
        .addColumn('symbols', 'text', (col) => col.notNull())
        .addColumn('start_date', 'text', (col) => col.notNull())
        .addColumn('end_date', 'text', (col) => col.notNull())
        .addColumn('timeframe', 'text', (col) => col.notNull())
        .addColumn('market_type', 'text', (col) => col.notNull())
        .addColumn('fees', 'text', (col) => col.notNull())
        .addColumn('leverage', 'double precision', (col) => col.notNull())
        .addColumn('slippage', 'double precision', (col) => col.notNull())
        .addColumn('initial_capital', 'double precision', (col) => col.notNull())
        .addColumn('params', 'text', (col) => col.notNull())
        .addColumn('data_source', 'text')
        .addColumn('compute_ms', 'double precision', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .addColumn('error', 'text')
        .execute();
      // The user's list, newest first, unfiltered and by strategy or by status (both filters:
      // either index, the other filter applied to its rows); also countCreatedSince.
      await db.schema
        .createIndex('backtests_user_id_created_at_id_idx')
        .ifNotExists()
        .on('backtests')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();
      await db.schema
        .createIndex('backtests_user_id_strategy_id_created_at_id_idx')
        .ifNotExists()
        .on('backtests')
        .columns(['user_id', 'strategy_id', 'created_at desc', 'id desc'])
        .execute();
      await db.schema
        .createIndex('backtests_user_id_status_created_at_id_idx')
        .ifNotExists()
        .on('backtests')
        .columns(['user_id', 'status', 'created_at desc', 'id desc'])
        .execute();
      // listByStatus: oldest first across users.
      await db.schema.createIndex('backtests_status_created_at_id_idx').ifNotExists().on('backtests').columns(['status', 'created_at', 'id']).execute();

      await db.schema
        .createTable('backtest_results')
        .ifNotExists()
        .addColumn('backtest_id', 'text', (col) => ordered(col).primaryKey().references('backtests.id').onDelete('cascade'))
        .addColumn('equity_curve', 'text', (col) => col.notNull())
        .addColumn('trades', 'text', (col) => col.notNull())
        .addColumn('metrics', 'text', (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('candle_chunks')
        .ifNotExists()
        .addColumn('source', 'text', (col) => ordered(col).notNull())
        .addColumn('symbol', 'text', (col) => ordered(col).notNull())
        .addColumn('timeframe', 'text', (col) => ordered(col).notNull())
        .addColumn('day', 'text', (col) => ordered(col).notNull())
        .addColumn('count', 'integer', (col) => col.notNull())
        .addColumn('data', bytes, (col) => col.notNull())
        .addPrimaryKeyConstraint('candle_chunks_pkey', ['source', 'symbol', 'timeframe', 'day'])
        .execute();
      if (dialect === 'postgres') {
        // Packed float64s hardly compress: storing them out of line uncompressed makes writing a
        // year of 1-minute candles about 3x faster than letting TOAST try pglz on every chunk.
        await sql`alter table candle_chunks alter column data set storage external`.execute(db);
      }
      // listSources (the primary key starts with source).
      await db.schema
        .createIndex('candle_chunks_symbol_timeframe_source_idx')
        .ifNotExists()
        .on('candle_chunks')
        .columns(['symbol', 'timeframe', 'source'])
        .execute();
    },

    async down(db: Kysely<any>) {
      for (const table of ['candle_chunks', 'backtest_results', 'backtests']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
