import { Kysely, type Dialect } from 'kysely';
import type { Store, StoreRepositories } from '@stratbox/core';
import type { DialectName } from './dialect-name.js';
import type { PostgresStoreConfig } from './dialects/postgres.js';
import type { SqliteStoreConfig } from './dialects/sqlite.js';
import { migrateToLatest } from './migrate.js';
import { createRepositories } from './repositories/index.js';
import type { Database } from './schema.js';

/** Which database the store uses: `{ dialect: 'sqlite', ... }` or `{ dialect: 'postgres', ... }`. */
export type KyselyStoreConfig = SqliteStoreConfig | PostgresStoreConfig;

/** A Stratbox `Store` on Kysely, with the Kysely instance for advanced use. */
export interface KyselyStore extends Store {
  /**
   * The Kysely instance behind the store, e.g. for reports or a host's own tables. Writes through
   * it bypass the store's guarantees; it is destroyed by `close()`. On SQLite every query shares
   * one connection: a query on `db` issued inside `store.transaction` waits until it ends.
   */
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
}

/**
 * Opens the database, brings its schema up to date (see `migrateToLatest`) and returns the
 * store. Rejects, with the connection closed, if the database cannot be opened or migrated.
 *
 * @example
 * const store = await createKyselyStore({ dialect: 'sqlite', filename: './data/stratbox.db' });
 * const pgStore = await createKyselyStore({ dialect: 'postgres', connectionString: process.env.DATABASE_URL!, schema: 'stratbox' });
 */
export async function createKyselyStore(config: KyselyStoreConfig): Promise<KyselyStore> {
  let dialect: Dialect;
  let schema: string | undefined;
  // Each dialect's driver (better-sqlite3, pg) is loaded only when that dialect is asked for.
  switch (config.dialect) {
    case 'sqlite':
      dialect = (await import('./dialects/sqlite.js')).createSqliteDialect(config);
      break;
    case 'postgres':
      dialect = await (await import('./dialects/postgres.js')).createPostgresDialect(config);
      schema = config.schema;
      break;
    default:
      throw new Error(`Unknown store dialect: ${String((config as { dialect?: unknown }).dialect)} (use 'sqlite' or 'postgres')`);
  }

  const db = new Kysely<Database>({ dialect });
  try {
    await migrateToLatest(db, schema === undefined ? { dialect: config.dialect } : { dialect: config.dialect, schema });
  } catch (error) {
    await db.destroy().catch(() => {});
    throw error;
  }
  return assembleStore(db, config.dialect);
}

function assembleStore(db: Kysely<Database>, dialect: DialectName): KyselyStore {
  let closing: Promise<void> | undefined;
  return {
    ...createRepositories({ db, dialect }),
    db,
    dialect,
    transaction<T>(fn: (tx: StoreRepositories) => Promise<T>): Promise<T> {
      return db.transaction().execute((trx) => fn(createRepositories({ db: trx, dialect })));
    },
    close(): Promise<void> {
      closing ??= db.destroy();
      return closing;
    },
  };
}
