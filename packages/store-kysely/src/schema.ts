/**
 * The Kysely `Database` type of the Stratbox tables. Column names are snake_case; timestamps
 * are the ISO 8601 strings core gives; arrays, maps and the error object are JSON text.
 */
export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  strategies: StrategiesTable;
  strategy_versions: StrategyVersionsTable;
  deployments: DeploymentsTable;
}

export interface UsersTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  /** SHA-256 of the key, hex. */
  hash: string;
  user_id: string;
  created_at: string;
}

export interface StrategiesTable {
  id: string;
  user_id: string;
  name: string;
  description: string;
  market_type: 'LINEAR' | 'SPOT';
  version: number;
  created_at: string;
  updated_at: string;
}

export interface StrategyVersionsTable {
  strategy_id: string;
  user_id: string;
  version: number;
  source: string;
  source_sha256: string;
  size_bytes: number;
  created_at: string;
}

export interface DeploymentsTable {
  id: string;
  user_id: string;
  strategy_id: string;
  strategy_version: number;
  credential_id: string;
  /** JSON array of symbols. */
  symbols: string;
  /** JSON object of string params. */
  params: string;
  status: string;
  /** JSON `{ code, message }`, or null. */
  error: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  stopped_at: string | null;
}
