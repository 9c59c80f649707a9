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
  backtests: BacktestsTable;
  backtest_results: BacktestResultsTable;
  candle_chunks: CandleChunksTable;
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

export interface BacktestsTable {
  id: string;
  user_id: string;
  strategy_id: string;
  strategy_version: number;
  status: string;
  progress: number;
  processed_bars: number;
  total_bars: number;
  /** JSON array of symbols. */
  symbols: string;
  start_date: string;
  end_date: string;
  timeframe: string;
  market_type: 'LINEAR' | 'SPOT';
  /** JSON `{ maker, taker }`. */
  fees: string;
  leverage: number;
  slippage: number;
  initial_capital: number;
  /** JSON object of string params. */
  params: string;
  data_source: string | null;
  compute_ms: number;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** JSON `{ code, message }`, or null. */
  error: string | null;
}

/** The results of a backtest, deleted with it (foreign key, on delete cascade). */
export interface BacktestResultsTable {
  backtest_id: string;
  /** JSON array of `{ time, equity }`. */
  equity_curve: string;
  /** JSON array of trades. */
  trades: string;
  /** JSON object. */
  metrics: string;
}

/** Candles packed by day; primary key (source, symbol, timeframe, day). */
export interface CandleChunksTable {
  source: string;
  symbol: string;
  timeframe: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  count: number;
  /** `count` little-endian float64 sextuples: BLOB on SQLite, bytea on PostgreSQL. Read back as a Buffer. */
  data: Uint8Array;
}
