import { Migrator, sql, type Kysely } from 'kysely';
import type { DialectName } from './dialect-name.js';
import { createMigrationProvider } from './migrations/index.js';

export interface MigrateOptions {
  /** The database behind `db`: migrations differ slightly between SQLite and PostgreSQL. */
  dialect: DialectName;
  /**
   * PostgreSQL: the schema that holds Stratbox's tables. `db`'s connections must use it as
   * their `search_path` (as `createKyselyStore` sets up); Kysely's migration bookkeeping tables
   * go there too. Default: the connection's `current_schema()` (the first existing schema of
   * its search path, usually `public`).
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
  await db.connection().execute(async (connection) => {
    // Always name the schema: without it, Kysely's migrator takes the bookkeeping tables of any
    // other schema in the database (another Stratbox, a test run's) for its own, skips creating
    // them here and then fails on `kysely_migration_lock` (issue #28).
    const schema = options.schema ?? (await currentSchema(connection));
    const key = `stratbox-migrations:${schema}`;
    await sql`select pg_advisory_lock(hashtext(${key}))`.execute(connection);
    try {
      await migrate(connection, { ...options, schema });
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(connection);
    }
  });
}

/** The schema unqualified names are created in: the first existing schema of the search path. */
async function currentSchema(db: Kysely<any>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) {
    throw new Error("Stratbox store migration failed: the connection's search_path names no existing schema; create one, or give the store a `schema`");
  }
  return schema;
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
