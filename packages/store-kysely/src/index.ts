/**
 * `@stratbox/store-kysely`: the Stratbox `Store` on Kysely, for SQLite (embedded, the default
 * of the example server) and PostgreSQL.
 */
export { createKyselyStore, type KyselyStore, type KyselyStoreConfig } from './create-kysely-store.js';
export type { SqliteStoreConfig } from './dialects/sqlite.js';
export type { PostgresStoreConfig } from './dialects/postgres.js';
export type { DialectName } from './dialect-name.js';
export { migrateToLatest, type MigrateOptions } from './migrate.js';
export { createMigrationProvider } from './migrations/index.js';
export type {
  Database,
  UsersTable,
  ApiKeysTable,
  StrategiesTable,
  StrategyVersionsTable,
  DeploymentsTable,
  BacktestsTable,
  BacktestResultsTable,
  CandleChunksTable,
} from './schema.js';
