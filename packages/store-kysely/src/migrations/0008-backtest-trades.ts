import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import { columnsOf } from './columns-of.js';

/** Trades written by one insert: three parameters each, well under SQLite's and PostgreSQL's limits. */
export const TRADE_BATCH_ROWS = 1_000;

/**
 * A backtest's trades, one row each, keyed by (backtest_id, seq), so that a page of trades reads
 * only its rows; `backtest_results` loses its `trades` JSON column and gains `trade_count` (trades
 * the run made) and `stored_trade_count` (rows in `backtest_trades`). Existing results have their
 * trades moved into the new table, one backtest at a time.
 *
 * Kysely runs a migration in one transaction on both dialects; the steps are written to complete
 * when run again anyway (`if not exists`, columns added or dropped only when (not) there).
 */
export function backtestTradesMigration(dialect: DialectName): Migration {
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('backtest_trades')
        .ifNotExists()
        .addColumn('backtest_id', 'text', (col) => ordered(col).notNull().references('backtests.id').onDelete('cascade'))
        .addColumn('seq', 'integer', (col) => col.notNull())
        .addColumn('trade', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('backtest_trades_pkey', ['backtest_id', 'seq'])
        .execute();

      const columns = await columnsOf(db, dialect, 'backtest_results');
      for (const column of ['trade_count', 'stored_trade_count']) {
        if (!columns.has(column)) {
          await db.schema
            .alterTable('backtest_results')
            .addColumn(column, 'integer', (col) => col.notNull().defaultTo(0))
            .execute();
        }
      }
      if (!columns.has('trades')) return;

      const ids = await db.selectFrom('backtest_results').select('backtest_id').execute();
      for (const { backtest_id } of ids as Array<{ backtest_id: string }>) {
        const row = (await db.selectFrom('backtest_results').select('trades').where('backtest_id', '=', backtest_id).executeTakeFirstOrThrow()) as {
          trades: string;
        };
        const trades = JSON.parse(row.trades) as unknown[];
        await db.deleteFrom('backtest_trades').where('backtest_id', '=', backtest_id).execute();
        for (let i = 0; i < trades.length; i += TRADE_BATCH_ROWS) {
          const batch = trades.slice(i, i + TRADE_BATCH_ROWS).map((trade, k) => ({ backtest_id, seq: i + k, trade: JSON.stringify(trade) }));
          await db.insertInto('backtest_trades').values(batch).execute();
        }
        await db
          .updateTable('backtest_results')
          .set({ trade_count: trades.length, stored_trade_count: trades.length })
          .where('backtest_id', '=', backtest_id)
          .execute();
      }
      await db.schema.alterTable('backtest_results').dropColumn('trades').execute();
    },

    async down(db: Kysely<any>) {
      const columns = await columnsOf(db, dialect, 'backtest_results');
      if (!columns.has('trades')) {
        await db.schema
          .alterTable('backtest_results')
          .addColumn('trades', 'text', (col) => col.notNull().defaultTo('[]'))
          .execute();
      }
      const ids = await db.selectFrom('backtest_results').select('backtest_id').execute();
      for (const { backtest_id } of ids as Array<{ backtest_id: string }>) {
        const rows = (await db.selectFrom('backtest_trades').select('trade').where('backtest_id', '=', backtest_id).orderBy('seq').execute()) as Array<{
          trade: string;
        }>;
        await db
          .updateTable('backtest_results')
          .set({ trades: `[${rows.map((r) => r.trade).join(',')}]` })
          .where('backtest_id', '=', backtest_id)
          .execute();
      }
      for (const column of ['trade_count', 'stored_trade_count']) {
        if (columns.has(column)) await db.schema.alterTable('backtest_results').dropColumn(column).execute();
      }
      await db.schema.dropTable('backtest_trades').ifExists().execute();
    },
  };
}
