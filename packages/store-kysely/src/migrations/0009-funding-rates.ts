import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import { columnsOf } from './columns-of.js';

/**
 * Funding rates for backtests: `funding_chunks` caches them packed by (source, symbol, UTC day),
 * as `candle_chunks` does candles (data: float64 pairs [timeMs, rate], a BLOB on SQLite, bytea on
 * PostgreSQL); `backtests` gains `funding` (1 when the run pays funding; backtests made before
 * this migration paid none: 0) and `funding_source` (where the rates came from, or null).
 *
 * Kysely runs a migration in one transaction on both dialects; the steps are written to complete
 * when run again anyway (`if not exists`, columns added only when not there).
 */
export function fundingRatesMigration(dialect: DialectName): Migration {
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('funding_chunks')
        .ifNotExists()
        .addColumn('source', 'text', (col) => ordered(col).notNull())
        .addColumn('symbol', 'text', (col) => ordered(col).notNull())
        .addColumn('day', 'text', (col) => ordered(col).notNull())
        .addColumn('count', 'integer', (col) => col.notNull())
        .addColumn('data', bytes, (col) => col.notNull())
        .addPrimaryKeyConstraint('funding_chunks_pkey', ['source', 'symbol', 'day'])
        .execute();
      // listSources (the primary key starts with source).
      await db.schema.createIndex('funding_chunks_symbol_source_idx').ifNotExists().on('funding_chunks').columns(['symbol', 'source']).execute();

      const columns = await columnsOf(db, dialect, 'backtests');
      if (!columns.has('funding')) {
        await db.schema
          .alterTable('backtests')
          .addColumn('funding', 'integer', (col) => col.notNull().defaultTo(0))
          .execute();
      }
      if (!columns.has('funding_source')) {
        await db.schema.alterTable('backtests').addColumn('funding_source', 'text').execute();
      }
    },

    async down(db: Kysely<any>) {
      const columns = await columnsOf(db, dialect, 'backtests');
      for (const column of ['funding_source', 'funding']) {
        if (columns.has(column)) await db.schema.alterTable('backtests').dropColumn(column).execute();
      }
      await db.schema.dropTable('funding_chunks').ifExists().execute();
    },
  };
}
