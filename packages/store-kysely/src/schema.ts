import type { ColumnType, Generated } from 'kysely';

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
  deployment_logs: DeploymentLogsTable;
  backtests: BacktestsTable;
  backtest_results: BacktestResultsTable;
  // Stored trades of backtests, one row each (migration 0008)
  backtest_trades: BacktestTradesTable;
  // Log lines of backtests, one row each (migration 0010)
  backtest_logs: BacktestLogsTable;
  // Optimizations, their trials and results (migration 0011)
  optimizations: OptimizationsTable;
  optimization_trials: OptimizationTrialsTable;
  optimization_results: OptimizationResultsTable;
  candle_chunks: CandleChunksTable;
  // Funding rates packed by day (migration 0009)
  funding_chunks: FundingChunksTable;
  // Marketplace and billing (migration 0004)
  listings: ListingsTable;
  listing_tags: ListingTagsTable;
  purchases: PurchasesTable;
  reviews: ReviewsTable;
  billing_customers: BillingCustomersTable;
  subscriptions: SubscriptionsTable;
  processed_events: ProcessedEventsTable;
  usage_counters: UsageCountersTable;
  local_invoices: LocalInvoicesTable;
  credentials: CredentialsTable;
  orders: OrdersTable;
  // Paper accounts (migration 0007)
  paper_accounts: PaperAccountsTable;
  // Notifications (migration 0016)
  notification_channels: NotificationChannelsTable;
  notification_events: NotificationEventsTable;
  notification_deliveries: NotificationDeliveriesTable;
  // Verified listings' records (migration 0017)
  verification_records: VerificationRecordsTable;
  // Drift reports: deployments' recordings, reports and thresholds (migration 0018)
  drift_candles: DriftCandlesTable;
  drift_intents: DriftIntentsTable;
  drift_runs: DriftRunsTable;
  drift_reports: DriftReportsTable;
  drift_thresholds: DriftThresholdsTable;
}

export interface PaperAccountsTable {
  credential_id: string;
  market_type: string;
  /** The paper exchange's own text (JSON). */
  state: string;
  /** Number on SQLite; PostgreSQL integer. */
  version: number;
  updated_at: string;
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
  /** Owner id of the process holding the lease (migration 0006), or null. */
  lease_owner: ColumnType<string | null, string | null | undefined, string | null>;
  /** ISO-8601 expiry of the lease (migration 0006), or null. */
  lease_until: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON text of the risk limits (migration 0012), or null. */
  risk: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON text of the halt (migration 0012), or null. */
  halt: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON text of the last pre-flight report (migration 0012), or null. */
  preflight: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON text of the reconciliation state (migration 0012), or null. */
  reconciliation: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON text of the risk guard's state, the peak and the day's starting equity (migration 0013), or null. */
  risk_state: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON text of the positions accepted at a restart by the owner, signed quantity by symbol (migration 0014), or null. */
  accepted_positions: ColumnType<string | null, string | null | undefined, string | null>;
  /** Leverage set on each perpetual symbol before start (migration 0015), or null to keep the account's. */
  leverage: ColumnType<number | null, number | null | undefined, number | null>;
  /** Margin mode, 'isolated' or 'cross', set before start (migration 0015), or null to keep the account's. */
  margin_mode: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** 1 when the run pays funding, else 0 (migration 0009; 0 for backtests made before it). */
  funding: ColumnType<number, number | undefined, number>;
  /** Where the funding rates came from, or null (migration 0009). */
  funding_source: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** JSON object. */
  metrics: string;
  /** Trades the run made in all (migration 0008). */
  trade_count: number;
  /** Trades stored in `backtest_trades` for it (migration 0008). */
  stored_trade_count: number;
}

/** A backtest's stored trades, primary key (backtest_id, seq); deleted with the backtest. */
export interface BacktestTradesTable {
  backtest_id: string;
  /** 0, 1, 2... in the order saved. */
  seq: number;
  /** The trade, JSON. */
  trade: string;
}

/** A backtest's log lines (migration 0010), primary key (backtest_id, seq); deleted with the backtest. */
export interface BacktestLogsTable {
  backtest_id: string;
  /** 0, 1, 2... in the order saved. */
  seq: number;
  /** ISO 8601: the candle time the line was written at. */
  timestamp: string;
  level: string;
  message: string;
}

/** Optimizations (migration 0011), deleted with their strategy (foreign key, on delete cascade). */
export interface OptimizationsTable {
  id: string;
  user_id: string;
  strategy_id: string;
  strategy_version: number;
  status: string;
  progress: number;
  trials_done: number;
  trials_total: number;
  /** JSON `OptimizationSpec`. */
  spec: string;
  /** JSON `OptimizationBestRecord`, or null. */
  best: string | null;
  compute_ms: number;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** JSON `{ code, message }`, or null. */
  error: string | null;
}

/** An optimization's trials, primary key (optimization_id, index); deleted with the optimization. */
export interface OptimizationTrialsTable {
  optimization_id: string;
  index: number;
  fold: number | null;
  /** JSON object of string params. */
  params: string;
  status: string;
  objective: number | null;
  /** 1 when feasible, else 0. */
  feasible: number;
  /** JSON object, or null. */
  metrics: string | null;
  /** JSON `{ code, message }`, or null. */
  error: string | null;
  cpu_ms: number;
  /** Little-endian float64s: BLOB on SQLite, bytea on PostgreSQL, read back as a Buffer; or null. */
  returns: Uint8Array | null;
}

/** The results of an optimization (JSON), deleted with it. */
export interface OptimizationResultsTable {
  optimization_id: string;
  results: string;
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

/** Funding rates of one (source, symbol, UTC day), migration 0009. */
export interface FundingChunksTable {
  source: string;
  symbol: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  count: number;
  /** `count` little-endian float64 pairs [timeMs, rate]: BLOB on SQLite, bytea on PostgreSQL. Read back as a Buffer. */
  data: Uint8Array;
}

/** Exchange credentials; `secrets` are the SecretBox's sealed bytes. */
export interface CredentialsTable {
  id: string;
  user_id: string;
  exchange: string;
  label: string;
  /** 0 or 1. */
  testnet: number;
  key_hint: string;
  /** BLOB on SQLite, bytea on PostgreSQL. Read back as a Buffer. */
  secrets: Uint8Array;
  created_at: string;
}

/** Deployment log lines (migration 0005); `seq` orders lines of equal timestamp. */
export interface DeploymentLogsTable {
  seq: Generated<number>;
  deployment_id: string;
  user_id: string;
  timestamp: string;
  level: string;
  message: string;
}

/** Live orders of deployments; `client_order_id` is unique. */
export interface OrdersTable {
  id: string;
  user_id: string;
  deployment_id: string;
  client_order_id: string;
  exchange_order_id: string | null;
  symbol: string;
  side: string;
  type: string;
  quantity: number;
  price: number | null;
  stop_price: number | null;
  /** 0 or 1. */
  reduce_only: number;
  status: string;
  filled_quantity: number;
  average_price: number | null;
  fee: number;
  created_at: string;
  updated_at: string;
}

/* ---- Marketplace and billing (migration 0004) ---- */

/** Marketplace listings; `tags` is the JSON array as given, `listing_tags` the same tags for search. */
export interface ListingsTable {
  id: string;
  seller_id: string;
  strategy_id: string;
  strategy_version: number;
  name: string;
  description: string;
  /** `name.toLowerCase()`, for case-insensitive search. */
  name_search: string;
  /** `description.toLowerCase()`. */
  description_search: string;
  /** USD cents. */
  price: number;
  /** JSON array of lower-case tags. */
  tags: string;
  rating_sum: number;
  review_count: number;
  purchase_count: number;
  /** `listed` or `unlisted`. */
  status: string;
  created_at: string;
  updated_at: string;
  /*
   * The current verification record's summary (migration 0017), all null without one: the sort
   * keys and the badge rank as columns for search, and the whole summary as JSON.
   */
  forward_return: number | null;
  forward_sharpe: number | null;
  dsr: number | null;
  forward_days: number | null;
  /** `BADGE_RANK` of the summary's badge. */
  badge_rank: number | null;
  /** JSON `ListingRecordSummary`. */
  record_summary: string | null;
}

/** One row per (listing, tag); deleted with the listing. */
export interface ListingTagsTable {
  listing_id: string;
  tag: string;
}

/** Purchases; unique (buyer_id, listing_id). */
export interface PurchasesTable {
  id: string;
  buyer_id: string;
  listing_id: string;
  seller_id: string;
  strategy_id: string;
  strategy_version: number;
  price: number;
  status: string;
  checkout_session_id: string | null;
  checkout_url: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** Reviews; unique (listing_id, reviewer_id). */
export interface ReviewsTable {
  id: string;
  listing_id: string;
  reviewer_id: string;
  rating: number;
  text: string;
  created_at: string;
  updated_at: string;
}

/** A user's customer at a payment provider; primary key (user_id, provider), unique (provider, customer_id). */
export interface BillingCustomersTable {
  user_id: string;
  provider: string;
  customer_id: string;
  created_at: string;
}

/** One subscription per user. */
export interface SubscriptionsTable {
  user_id: string;
  provider: string;
  subscription_id: string;
  customer_id: string | null;
  tier: string;
  status: string;
  current_period_start: string | null;
  current_period_end: string | null;
  /** 0 or 1. */
  cancel_at_period_end: number;
  event_created_at: string;
  updated_at: string;
}

/** Webhook events already processed; primary key (provider, event_id). */
export interface ProcessedEventsTable {
  provider: string;
  event_id: string;
  type: string;
  received_at: string;
}

/** Usage per (user, billing period). */
export interface UsageCountersTable {
  user_id: string;
  period_start: string;
  period_end: string;
  backtests: number;
  compute_ms: number;
  updated_at: string;
}

/** Invoices of the local billing provider. */
export interface LocalInvoicesTable {
  id: string;
  user_id: string;
  number: string;
  status: string;
  amount_due: number;
  amount_paid: number;
  currency: string;
  description: string;
  hosted_url: string | null;
  pdf_url: string | null;
  created_at: string;
}

export interface NotificationChannelsTable {
  id: string;
  user_id: string;
  kind: string;
  label: string;
  /** The event filter as JSON text (`["*"]` or a list of types). */
  events: string;
  min_severity: string;
  /** 'active' or 'paused'. */
  status: string;
  paused_reason: string | null;
  target: string;
  /** BLOB on SQLite, bytea on PostgreSQL. Read back as a Buffer. */
  secrets: Uint8Array;
  created_at: string;
  updated_at: string;
}

export interface NotificationEventsTable {
  id: string;
  user_id: string;
  type: string;
  severity: string;
  time: string;
  subject_kind: string;
  subject_id: string;
  summary: string;
  /** The event's data as JSON text. */
  data: string;
  only_channel_id: string | null;
  except_channel_id: string | null;
  dispatched_at: string | null;
  created_at: string;
}

export interface NotificationDeliveriesTable {
  id: string;
  user_id: string;
  channel_id: string;
  event_id: string;
  event_type: string;
  flood_key: string;
  /** Unique; null on a delivery of one event, unique with (channel_id, event_id) then. */
  digest_key: string | null;
  event_count: number;
  last_event_id: string;
  /** 'pending', 'delivered' or 'failed'. */
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

/** One listed version's verification record (migration 0017). */
export interface VerificationRecordsTable {
  id: string;
  listing_id: string;
  seller_id: string;
  strategy_id: string;
  status: string;
  /** JSON `{ code, message }`, or null. */
  error: string | null;
  /** JSON `RecordIdentity`. */
  identity: string;
  /** JSON platform backtest, or null. */
  backtest: string | null;
  /** JSON forward record without its points. */
  forward: string;
  /** The forward points' bytes, exactly as given; null when the record has none. */
  forward_points: Uint8Array | null;
  /** JSON `{ backtests, trials, total }`. */
  search_effort: string;
  badge: string;
  created_at: string;
  superseded_at: string | null;
  updated_at: string;
}

/** Epoch milliseconds: a number on SQLite, a string on PostgreSQL (`bigint`); written as a number. */
type EpochMs = ColumnType<number | string, number, number>;

/** One candle a deployment delivered to its strategy (migration 0018). */
export interface DriftCandlesTable {
  deployment_id: string;
  time: EpochMs;
  symbol: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  equity: number;
  recorded_at: string;
}

/** One order intent of a deployment's strategy, in recorded order (migration 0018). */
export interface DriftIntentsTable {
  seq: Generated<number | string>;
  id: string;
  deployment_id: string;
  candle_time: EpochMs;
  source: string;
  kind: string;
  symbol: string;
  side: string | null;
  type: string | null;
  quantity: number | null;
  size: number | null;
  price: number | null;
  /** 0/1 */
  reduce_only: number;
  /** 0/1 */
  close_all: number;
  tag: string | null;
  guest_id: string;
  recorded_at: string;
}

/** One run (start or resume) of a deployment (migration 0018). */
export interface DriftRunsTable {
  seq: Generated<number | string>;
  deployment_id: string;
  started_at: string;
  start_equity: number | null;
  /** 0/1 */
  resumed: number;
}

/** A stored drift report (migration 0018). */
export interface DriftReportsTable {
  deployment_id: string;
  window_key: string;
  recorded_up_to: EpochMs;
  /** JSON `DriftReport`. */
  report: string;
  updated_at: string;
}

/** A deployment's drift alert thresholds (migration 0018). */
export interface DriftThresholdsTable {
  deployment_id: string;
  /** JSON `DriftThresholds`. */
  thresholds: string;
}
