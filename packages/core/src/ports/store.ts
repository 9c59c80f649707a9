import type { DeploymentStatus } from '../contract/deployments.js';

/*
 * The Store port: every repository core needs, plus transactions. Implementations:
 * `createMemoryStore` (core/testing) and `createKyselyStore` (@stratbox/store-kysely).
 * Every implementation runs the shared contract suite `describeStoreContract`.
 *
 * Guarantees every implementation gives:
 * - Scoping: every method that reads or changes a user's record takes the owner's `userId`
 *   and never touches a record of another user; for another user's record it behaves exactly
 *   as for a missing one (null / false / 0).
 * - "Not found" is `null` for finders and `false` for updates and deletes, never a throw.
 * - Timestamps are ISO 8601 UTC strings with milliseconds and are stored as given.
 * - Lists are ordered newest first by (createdAt desc, id desc) and return at most `limit`
 *   rows strictly after the `after` position.
 * - Arrays and maps (symbols, params) come back equal to what was stored.
 */

/** A position in a newest-first list: rows strictly after it are returned. */
export interface ListPosition {
  createdAt: string;
  id: string;
}

export interface PageRequest {
  limit: number;
  after?: ListPosition;
}

export interface UserRecord {
  id: string;
  name: string;
  createdAt: string;
}

export interface ApiKeyRecord {
  /** SHA-256 of the key, hex. The key itself is never stored. */
  hash: string;
  userId: string;
  createdAt: string;
}

export interface StrategyRecord {
  id: string;
  userId: string;
  name: string;
  description: string;
  marketType: 'LINEAR' | 'SPOT';
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface StrategyVersionRecord {
  strategyId: string;
  userId: string;
  version: number;
  source: string;
  sourceSha256: string;
  sizeBytes: number;
  createdAt: string;
}

export type StrategyVersionInfo = Omit<StrategyVersionRecord, 'source'>;

export interface DeploymentRecord {
  id: string;
  userId: string;
  strategyId: string;
  strategyVersion: number;
  credentialId: string;
  symbols: string[];
  params: Record<string, string>;
  status: DeploymentStatus;
  error: { code: string; message: string } | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  stoppedAt: string | null;
}

export interface UserRepository {
  /** Inserts a user; throws if the id exists. */
  insert(user: UserRecord): Promise<void>;
  findById(id: string): Promise<UserRecord | null>;
}

export interface ApiKeyRepository {
  /** Inserts a key hash; throws if the hash exists. */
  insert(key: ApiKeyRecord): Promise<void>;
  /** The owner of the key with this hash, or null. */
  findUserIdByHash(hash: string): Promise<string | null>;
}

export interface StrategyRepository {
  /** Inserts a strategy; its versions are inserted with `insertVersion`. Throws if the id exists. */
  insert(strategy: StrategyRecord): Promise<void>;
  /**
   * The user's strategy, or null. With `forUpdate` inside a transaction, the row stays locked
   * against other transactions' writes until this one ends (PostgreSQL `FOR UPDATE`; SQLite and
   * memory serialize whole transactions).
   */
  findById(userId: string, id: string, options?: { forUpdate?: boolean }): Promise<StrategyRecord | null>;
  list(userId: string, page: PageRequest): Promise<StrategyRecord[]>;
  /** Changes the given fields of the user's strategy; false if there is no such strategy. */
  update(userId: string, id: string, patch: Partial<Pick<StrategyRecord, 'name' | 'description' | 'version' | 'updatedAt'>>): Promise<boolean>;
  /** Deletes the user's strategy and all its versions; false if there is no such strategy. */
  delete(userId: string, id: string): Promise<boolean>;
  /** Inserts one version; throws if (strategyId, version) exists, so a version is never written twice, or if the strategy does not exist. */
  insertVersion(version: StrategyVersionRecord): Promise<void>;
  /** Version history of the user's strategy, newest first, without sources. Empty if not the user's. */
  listVersions(userId: string, strategyId: string): Promise<StrategyVersionInfo[]>;
  /** One version with its source, or null. */
  getVersion(userId: string, strategyId: string, version: number): Promise<StrategyVersionRecord | null>;
}

export interface DeploymentRepository {
  /** Inserts a deployment; throws if the id exists. */
  insert(deployment: DeploymentRecord): Promise<void>;
  findById(userId: string, id: string): Promise<DeploymentRecord | null>;
  list(userId: string, page: PageRequest): Promise<DeploymentRecord[]>;
  /** Number of the user's deployments in an active status (starting, running, stopping), optionally of one strategy or credential. */
  countActive(userId: string, filter?: { strategyId?: string; credentialId?: string }): Promise<number>;
}

/** The repositories, as seen inside or outside a transaction. */
export interface StoreRepositories {
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  strategies: StrategyRepository;
  deployments: DeploymentRepository;
}

export interface Store extends StoreRepositories {
  /**
   * Runs `fn` in one transaction. Every write made through `tx` commits together when `fn`
   * resolves, or none does when it throws (the error is rethrown unchanged). Use only `tx`
   * inside `fn`: calling the outer repositories or `transaction` again from inside `fn` can
   * deadlock (SQLite and memory run one transaction at a time). A failed store call inside `fn`
   * must be allowed to propagate: PostgreSQL refuses every later statement of that
   * transaction.
   */
  transaction<T>(fn: (tx: StoreRepositories) => Promise<T>): Promise<T>;
  /** Closes connections; later calls fail. Safe to call twice. */
  close(): Promise<void>;
}
