import { sql, type ColumnDefinitionBuilder, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Optimizations, their trials and their results (a table of their own, read only by
 * `getResult`). An optimization belongs to its strategy and
 * is deleted with it (foreign key, on delete cascade; unlike backtests, which outlive it); its
 * trials, keyed by (optimization_id, index), and its results are deleted with the optimization.
 * Spec, best, error, params, metrics and results are JSON text; numbers that may be fractional
 * are `double precision`; `feasible` is 0 or 1; a trial's returns are little-endian float64s, a
 * BLOB on SQLite and bytea on PostgreSQL, as the last column so that rows read without them skip
 * their pages. As in the earlier migrations every statement is `if not exists`, and on
 * PostgreSQL ordered text columns compare bytewise (`collate "C"`).
 */
export function optimizationsMigration(dialect: DialectName): Migration {
  const ordered = (col: ColumnDefinitionBuilder) => (dialect === 'postgres' ? col.modifyFront(sql`collate "C"`) : col);
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';

  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('optimizations')
        .ifNotExists()
        .addColumn('id', 'text', (col) => ordered(col).primaryKey())
        .addColumn('user_id', 'text', (col) => col.notNull())
        .addColumn('strategy_id', 'text', (col) => col.notNull().references('strategies.id').onDelete('cascade'))
        .addColumn('strategy_version', 'integer', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('progress', 'double precision', (col) => col.notNull())
        .addColumn('trials_done', 'integer', (col) => col.notNull())
        .addColumn('trials_total', 'integer', (col) => col.notNull())
        .addColumn('spec', 'text', (col) => col.notNull())
        .addColumn('best', 'text')
        .addColumn('compute_ms', 'double precision', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => ordered(col).notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .addColumn('error', 'text')
        .execute();
      // The user's list, newest first (a strategy or status filter applies to its rows).
      await db.schema
        .createIndex('optimizations_user_id_created_at_id_idx')
        .ifNotExists()
        .on('optimizations')
        .columns(['user_id', 'created_at desc', 'id desc'])
        .execute();
      // listByStatus: oldest first across users.
      await db.schema.createIndex('optimizations_status_created_at_id_idx').ifNotExists().on('optimizations').columns(['status', 'created_at', 'id']).execute();
      // Deleting a strategy finds its optimizations.
      await db.schema.createIndex('optimizations_strategy_id_idx').ifNotExists().on('optimizations').column('strategy_id').execute();

      await db.schema
        .createTable('optimization_trials')
        .ifNotExists()
        .addColumn('optimization_id', 'text', (col) => ordered(col).notNull().references('optimizations.id').onDelete('cascade'))
        .addColumn('index', 'integer', (col) => col.notNull())
        .addColumn('fold', 'integer')
        .addColumn('params', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('objective', 'double precision')
        .addColumn('feasible', 'integer', (col) => col.notNull())
        .addColumn('metrics', 'text')
        .addColumn('error', 'text')
        .addColumn('cpu_ms', 'double precision', (col) => col.notNull())
        .addColumn('returns', bytes)
        .addPrimaryKeyConstraint('optimization_trials_pkey', ['optimization_id', 'index'])
        .execute();
      if (dialect === 'postgres') {
        // Packed float64s hardly compress (as candle chunks): stored out of line uncompressed.
        await sql`alter table optimization_trials alter column returns set storage external`.execute(db);
      }
      // listTrials in objective order: feasible first, objective descending with none last (the
      // default of `desc` on SQLite, where null sorts lowest; PostgreSQL says it), then index.
      const objective = dialect === 'postgres' ? sql`objective desc nulls last` : sql`objective desc`;
      await sql`create index if not exists optimization_trials_objective_idx on optimization_trials (optimization_id, feasible desc, ${objective}, "index")`.execute(
        db,
      );

      await db.schema
        .createTable('optimization_results')
        .ifNotExists()
        .addColumn('optimization_id', 'text', (col) => ordered(col).primaryKey().references('optimizations.id').onDelete('cascade'))
        .addColumn('results', 'text', (col) => col.notNull())
        .execute();
    },

    async down(db: Kysely<any>) {
      for (const table of ['optimization_trials', 'optimization_results', 'optimizations']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
