import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Dialect, type Driver } from 'kysely';
import { createReadCache, type CachedStatement } from './sqlite-read-cache.js';

/** An embedded SQLite database file, opened with better-sqlite3. */
export interface SqliteStoreConfig {
  dialect: 'sqlite';
  /** Path of the database file, created with its directory if missing; `':memory:'` for a private in-memory database. */
  filename: string;
  /** How long a write waits for another process's lock before failing. Default 5000 ms. */
  busyTimeoutMs?: number;
}

type BetterSqliteDatabase = InstanceType<typeof BetterSqlite3>;

/** The part of a better-sqlite3 database Kysely's driver and ours use. */
interface SqliteDatabase {
  prepare(sql: string): CachedStatement;
  close(): void;
  readonly inTransaction: boolean;
}

/**
 * better-sqlite3 with its prepared statements kept, least recently used first out: Kysely
 * prepares every query anew, which costs as much as running a small one. Safe because Kysely
 * runs one query at a time on the single connection, so a statement is never busy when reused.
 */
function withStatementCache(database: BetterSqliteDatabase, capacity = 256): SqliteDatabase {
  const cache = new Map<string, CachedStatement>();
  const reads = createReadCache(database);
  return {
    prepare(sql) {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = reads.wrap(sql, database.prepare(sql));
        if (cache.size >= capacity) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, statement);
      return statement;
    },
    close() {
      cache.clear();
      reads.clear();
      database.close();
    },
    get inTransaction() {
      return database.inTransaction;
    },
  };
}

/**
 * Kysely's SQLite driver, with two changes:
 * - transactions start with `begin immediate`, so a transaction takes the write lock up front
 *   (waiting up to the busy timeout) instead of failing half-way when another process writes;
 * - rollback runs only if SQLite still has a transaction open, so the error that ended the
 *   transaction is the one rethrown, not "no transaction is active".
 * Kysely's driver already runs everything on one connection behind a mutex, so concurrent
 * transactions in this process wait for each other instead of interleaving.
 */
class StratboxSqliteDriver extends SqliteDriver {
  readonly #database: SqliteDatabase;

  constructor(database: SqliteDatabase) {
    super({ database });
    this.#database = database;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.#database.inTransaction) await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
}

class StratboxSqliteDialect extends SqliteDialect {
  readonly #database: SqliteDatabase;

  constructor(database: SqliteDatabase) {
    super({ database });
    this.#database = database;
  }

  override createDriver(): Driver {
    return new StratboxSqliteDriver(this.#database);
  }
}

/** Opens the database file (WAL journal, busy timeout, foreign keys on) and wraps it in a Kysely dialect. */
export function createSqliteDialect(config: SqliteStoreConfig): Dialect {
  const { filename } = config;
  const inMemory = filename === ':memory:' || filename === '';
  if (!inMemory && !filename.startsWith('file:')) mkdirSync(dirname(filename), { recursive: true });
  const database = new BetterSqlite3(filename);
  try {
    database.pragma(`busy_timeout = ${Math.max(0, Math.floor(config.busyTimeoutMs ?? 5000))}`);
    if (!inMemory) database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
  } catch (error) {
    database.close();
    throw error;
  }
  return new StratboxSqliteDialect(withStatementCache(database));
}
