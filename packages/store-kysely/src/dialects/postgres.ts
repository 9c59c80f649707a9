import pg from 'pg';
import { CompiledQuery, PostgresDialect, type Dialect } from 'kysely';

/** A PostgreSQL database, reached through a `pg` connection pool. */
export interface PostgresStoreConfig {
  dialect: 'postgres';
  /** `postgres://user:password@host:port/database`, as `pg` takes it. */
  connectionString: string;
  /**
   * The schema for Stratbox's tables. Created if missing, and set as the `search_path` of every
   * connection. Default: the connection's own search path (usually `public`).
   */
  schema?: string;
  /** Maximum number of pooled connections. Default 10. */
  poolSize?: number;
}

/** A double-quoted SQL identifier. */
export const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Codes PostgreSQL may answer when two sessions create the same schema at once. */
const ALREADY_EXISTS = new Set(['42P06', '23505']);

/**
 * Opens a connection pool, creates the schema if one is given and missing, and returns a
 * Kysely dialect whose every connection uses that schema.
 */
export async function createPostgresDialect(config: PostgresStoreConfig): Promise<Dialect> {
  const pool = new pg.Pool({ connectionString: config.connectionString, max: config.poolSize ?? 10 });
  // An idle connection that fails (server restart, network) is dropped and replaced by the
  // pool; without a listener, its 'error' event would crash the host process.
  pool.on('error', () => {});
  const { schema } = config;
  if (schema === undefined) return new PostgresDialect({ pool });

  if (schema === '') {
    await pool.end();
    throw new Error('The PostgreSQL schema name must not be empty');
  }
  try {
    const client = await pool.connect();
    try {
      await client.query(`create schema if not exists ${quoteIdentifier(schema)}`);
    } catch (error) {
      if (!ALREADY_EXISTS.has((error as { code?: string }).code ?? '')) throw error;
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  const setSearchPath = CompiledQuery.raw(`set search_path to ${quoteIdentifier(schema)}`);
  return new PostgresDialect({
    pool,
    onCreateConnection: async (connection) => {
      await connection.executeQuery(setSearchPath);
    },
  });
}
