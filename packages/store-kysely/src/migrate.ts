import { Migrator, sql, type Kysely } from 'kysely';
import type { DialectName } from './dialect-name.js';
import { createMigrationProvider } from './migrations/index.js';

export interface MigrateOptions {
  /** The database behind `db`: migrations differ slightly between SQLite and PostgreSQL. */
  dialect: DialectName;
  /**
   * PostgreSQL: the schema that holds Stratbox's tables. `db`'s connections must use it as
   * their `search_path` (as `createKyselyStore` sets up); Kysely's migration bookkeeping tables
   * go there too.
   */
  schema?: string;
}

/**
 * Brings the database to the latest schema. Safe to run again and from several processes at
 * once: on PostgreSQL the processes take turns on an advisory lock per schema (Kysely's own
 * lock table cannot be created safely by two processes at the same instant), on SQLite the
 * write lock serializes them; applied migrations are skipped. Throws the first migration
 * error, after which the failed migration and any later ones are not applied.
 */
export async function migrateToLatest(db: Kysely<any>, options: MigrateOptions): Promise<void> {
  if (options.dialect !== 'postgres') return migrate(db, options);
  const key = `stratbox-migrations:${options.schema ?? 'public'}`;
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(hashtext(${key}))`.execute(connection);
    try {
      await migrate(connection, options);
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(connection);
    }
  });
}

async function migrate(db: Kysely<any>, options: MigrateOptions): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: createMigrationProvider(options.dialect),
    ...(options.schema === undefined ? {} : { migrationTableSchema: options.schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Stratbox store migration${failed ? ` ${failed}` : ''} failed: ${reason}`, { cause: error });
  }
}
