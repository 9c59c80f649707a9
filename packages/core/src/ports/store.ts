import type { BacktestStatus, DeploymentHalt, DeploymentStatus, PreflightReport, ReconciliationReport, RiskLimits } from '@stratbox/contract';
import type { SealedSecret } from './secret-box.js';
import type {
  BillingCustomerRepository,
  ListingRepository,
  LocalInvoiceRepository,
  ProcessedEventRepository,
  PurchaseRepository,
  ReviewRepository,
  SubscriptionRepository,
  UsageCounterRepository,
} from './store-marketplace-billing.js';
import type { OptimizationRepository } from './store-optimizations.js';
import type { NotificationChannelRepository, NotificationDeliveryRepository, NotificationEventRepository } from './store-notifications.js';
import type { VerificationRecordRepository } from './store-verification.js';
import type { DeploymentRecordingRepository, DriftReportRepository } from './store-drift.js';

export * from './store-marketplace-billing.js';
export * from './store-optimizations.js';
export * from './store-notifications.js';
export * from './store-verification.js';
export * from './store-drift.js';

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
  /*
   * The fields below were added with live-trading safety (issue #24). A Store returns them on
   * every record it reads (null when unset); they are optional here so that records written by
   * hand, and Stores written before them, still type-check.
   */
  /** Risk limits in force, or null for none. */
  risk?: RiskLimits | null;
  /** Leverage (1..125) the pre-flight sets on each perpetual symbol before start, or null to keep the account's. */
  leverage?: number | null;
  /** Margin mode the pre-flight sets on each perpetual symbol before start, or null to keep the account's. */
  marginMode?: 'isolated' | 'cross' | null;
  /** Set when the deployment was halted (a breach or a reconciliation mismatch); cleared on restart. */
  halt?: DeploymentHalt | null;
  /** The last pre-flight checks' result. */
  preflight?: PreflightReport | null;
  /** The state of continuous reconciliation. */
  reconciliation?: ReconciliationReport | null;
  /**
   * Internal (not shown by the API): what the risk guard keeps across a restart of the service,
   * the peak equity since the deployment started and the UTC day's starting equity. Cleared on
   * restart by its owner, so a restarted deployment measures from its new start.
   */
  riskState?: DeploymentRiskState | null;
  /**
   * Internal (not shown by the API): the positions its owner accepted at a restart, as signed
   * quantities by symbol (long positive) that the deployment's own fills do not explain but that
   * reconciliation takes as explained. Written when a restart by the owner finds the account's
   * position differing from the fills (after a `positionMismatch` halt), so the acceptance
   * survives a restart of the service; null for a new deployment and after a restart that finds
   * every position explained.
   */
  acceptedPositions?: Record<string, number> | null;
}

/** The risk guard's memory of one deployment (see deployments/risk-guard.ts). */
export interface DeploymentRiskState {
  /** Highest equity since the deployment started, in its settle currency. */
  peakEquity: number;
  /** When that peak was seen (ISO-8601). */
  peakAt: string;
  /** The UTC day (YYYY-MM-DD) `dayStartEquity` belongs to. */
  day: string;
  /** Equity at the first reading of `day`. */
  dayStartEquity: number;
}

export interface BacktestRecord {
  id: string;
  userId: string;
  strategyId: string;
  strategyVersion: number;
  status: BacktestStatus;
  /** 0..1 */
  progress: number;
  processedBars: number;
  totalBars: number;
  symbols: string[];
  startDate: string;
  endDate: string;
  timeframe: string;
  marketType: 'LINEAR' | 'SPOT';
  fees: { maker: number; taker: number };
  leverage: number;
  slippage: number;
  initialCapital: number;
  params: Record<string, string>;
  /** Where the candles came from (e.g. `synthetic`, `csv`, `ccxt:binance`); null until known. */
  dataSource: string | null;
  /** Whether the run pays funding (asked for, and LINEAR: SPOT never does). */
  funding: boolean;
  /**
   * Where the funding rates came from, as `dataSource` (comma-separated when the symbols' came
   * from several sources); null until known, when `funding` is false, or when no symbol had any.
   */
  fundingSource: string | null;
  /** CPU milliseconds of sandboxed execution, once finished. */
  computeMs: number;
  /** How many times a worker started this run (a run interrupted by a crash is retried once). */
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: { code: string; message: string } | null;
}

/** The results of a completed backtest, kept apart from the record because they are large. */
export interface BacktestResultRecord {
  backtestId: string;
  equityCurve: Array<{ time: string; equity: number }>;
  /**
   * The trades to store, in the order `listTrades` returns them: `trades[i]` is read back with
   * `seq` i. The service caps how many a run stores; the run may have made more (`tradeCount`).
   */
  trades: Array<Record<string, unknown>>;
  /** Trades the run made in all: at least `trades.length`, more when the cap cut the rest. */
  tradeCount: number;
  metrics: Record<string, unknown>;
}

/** The results as `getResult` reads them: all but the trades, which `listTrades` reads a page at a time. */
export interface BacktestResultSummary extends Omit<BacktestResultRecord, 'trades'> {
  /** How many trades are stored (`trades.length` when saved). */
  storedTradeCount: number;
}

/** One stored trade of a backtest and its position (0, 1, 2... in the order saved). */
export interface BacktestTradeRecord {
  seq: number;
  trade: Record<string, unknown>;
}

/** Fields a worker or the service may change on a backtest. */
export type BacktestPatch = Partial<
  Pick<
    BacktestRecord,
    'status' | 'progress' | 'processedBars' | 'totalBars' | 'dataSource' | 'fundingSource' | 'computeMs' | 'attempts' | 'startedAt' | 'finishedAt' | 'error'
  >
>;

/**
 * Candles packed by day: `data` holds `count` candles as consecutive float64 sextuples
 * `[timeMs, open, high, low, close, volume]`, little-endian, in time order.
 */
export interface CandleChunkRecord {
  source: string;
  symbol: string;
  timeframe: string;
  /** UTC day `YYYY-MM-DD` the candles open in. */
  day: string;
  count: number;
  data: Uint8Array;
}

export interface UserRepository {
  /** Inserts a user; throws if the id exists. */
  insert(user: UserRecord): Promise<void>;
  findById(id: string): Promise<UserRecord | null>;
  /**
   * Inside a transaction: serializes it with every other transaction that locks the same user
   * id, from this call until it ends (commit or rollback), so that a per-user check (a plan's
   * live bot limit) and the write it guards are atomic, whatever other rows (credentials) the
   * transactions touch. Works whether or not the user has a row (hosts with their own
   * authentication have none). PostgreSQL: a transaction-scoped advisory lock keyed by the user
   * id; SQLite and memory run whole transactions one at a time, so there is nothing more to do.
   * Outside a transaction it has no lasting effect. Take it before any row lock of the same
   * transaction, so that lock order is always user first.
   */
  lock(userId: string): Promise<void>;
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

/** Fields the deployment service and supervisor may change on a deployment. */
export type DeploymentPatch = Partial<
  Pick<
    DeploymentRecord,
    'status' | 'error' | 'updatedAt' | 'startedAt' | 'stoppedAt' | 'risk' | 'halt' | 'preflight' | 'reconciliation' | 'riskState' | 'acceptedPositions'
  >
>;

/** Narrows the active deployments counted or listed to one strategy and/or one credential. */
export interface ActiveDeploymentFilter {
  strategyId?: string;
  credentialId?: string;
}

export interface DeploymentRepository {
  /** Inserts a deployment; throws if the id exists. */
  insert(deployment: DeploymentRecord): Promise<void>;
  findById(userId: string, id: string): Promise<DeploymentRecord | null>;
  list(userId: string, page: PageRequest): Promise<DeploymentRecord[]>;
  /** Number of the user's deployments in an active status (starting, running, halted, stopping), optionally of one strategy or credential. */
  countActive(userId: string, filter?: ActiveDeploymentFilter): Promise<number>;
  /** The same deployments as `countActive`, newest first (a user has few: the plan's live bot limit). */
  listActive(userId: string, filter?: ActiveDeploymentFilter): Promise<DeploymentRecord[]>;
  /**
   * Applies `patch` (undefined fields are not changed) only if the deployment is currently in
   * one of the `from` statuses, atomically (a compare-and-set: of two concurrent transitions
   * from the same status, exactly one wins). Returns the updated record, or null if it was not
   * in a `from` status or does not exist. Not scoped to a user: for the supervisor and the
   * service, after ownership was checked.
   */
  transition(id: string, from: readonly DeploymentStatus[], patch: DeploymentPatch): Promise<DeploymentRecord | null>;
  /** Applies `patch` whatever the status; the updated record, or null if there is no such deployment. Not scoped to a user. */
  update(id: string, patch: DeploymentPatch): Promise<DeploymentRecord | null>;
  /**
   * Deletes the user's deployment together with its orders and log entries; false if there is
   * no such deployment (or it is another user's).
   */
  delete(userId: string, id: string): Promise<boolean>;
  /**
   * Deployments in the given statuses, oldest first by (createdAt, id), across users (for
   * recovery at start): at most `limit`, strictly after `after` when given, so that a caller
   * pages through any number of them.
   */
  listByStatus(statuses: readonly DeploymentStatus[], limit: number, after?: ListPosition): Promise<DeploymentRecord[]>;
  /**
   * The user's deployments of `strategyId` (any status, live or paper) created at or after
   * `createdFrom` (ISO timestamps compared as strings), oldest first by (createdAt, id), at most
   * `limit`. Scoped to the user: another user's deployments are never included. For the
   * buyers' outcomes of a listing (docs/verified-listings.md), where `strategyId` is the seller's
   * strategy a purchase licenses.
   */
  listByStrategy(userId: string, strategyId: string, options: { createdFrom: string; limit: number }): Promise<DeploymentRecord[]>;
  /*
   * Leases: which process runs a deployment. A lease is an owner id and an expiry (`untilIso`,
   * an ISO-8601 UTC timestamp compared as a string); the deployment's status is not involved.
   * Timestamps come from the caller's clock, so the processes of a service need clocks that
   * agree to well within the lease length.
   */
  /**
   * Takes the deployment's lease for `owner` until `untilIso`, atomically (a compare-and-set:
   * of concurrent acquirers exactly one wins). Succeeds only if there is no lease, the lease
   * expired (`until < nowIso`), or `owner` already holds it (then it is extended). False when
   * another owner holds an unexpired lease or there is no such deployment.
   */
  acquireLease(deploymentId: string, owner: string, untilIso: string, nowIso: string): Promise<boolean>;
  /**
   * Extends the lease to `untilIso` only if `owner` still holds it and it has not expired
   * (`until >= nowIso`); false otherwise (it expired, was taken over or released): the owner
   * must then stop acting for the deployment at once.
   */
  renewLease(deploymentId: string, owner: string, untilIso: string, nowIso: string): Promise<boolean>;
  /** Gives the lease up if `owner` holds it (expired or not), so another owner may take it at once; otherwise changes nothing. */
  releaseLease(deploymentId: string, owner: string): Promise<void>;
}

export type DeploymentLogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One line of a deployment's log: a system event or a strategy's `ctx.log`. */
export interface DeploymentLogRecord {
  deploymentId: string;
  userId: string;
  /** ISO 8601 UTC with milliseconds. */
  timestamp: string;
  level: DeploymentLogLevel;
  message: string;
}

/** A log entry as read back: with its `seq`, increasing in order of appending (unique per store). */
export interface StoredDeploymentLogRecord extends DeploymentLogRecord {
  seq: number;
}

/** A position in a deployment's log (oldest first): entries strictly after it are returned. */
export interface LogPosition {
  timestamp: string;
  seq: number;
}

export interface DeploymentLogRepository {
  /** Appends entries; entries appended later come later in `list` for equal timestamps. */
  append(entries: readonly DeploymentLogRecord[]): Promise<void>;
  /**
   * The user's deployment's entries, oldest first (timestamp, then order of appending: `seq`),
   * at or after `since` when given, strictly after the position `after` when given, at most
   * `limit`. Empty if the deployment is not the user's.
   */
  list(userId: string, deploymentId: string, options: { since?: string; after?: LogPosition; limit: number }): Promise<StoredDeploymentLogRecord[]>;
}

/**
 * One line a strategy wrote during a backtest (`ctx.log`, `console`), as the backtest keeps it.
 * The shape of a deployment's log line without its deployment: the API serves both alike.
 */
export interface BacktestLogRecord {
  /** ISO 8601 UTC with milliseconds: the candle time at which the strategy wrote the line. */
  timestamp: string;
  level: DeploymentLogLevel;
  message: string;
}

/** A backtest's log line as read back: with its `seq`, 0, 1, 2... in the order saved. */
export interface StoredBacktestLogRecord extends BacktestLogRecord {
  seq: number;
}

export interface BacktestRepository {
  /** Inserts a backtest; throws if the id exists. */
  insert(backtest: BacktestRecord): Promise<void>;
  findById(userId: string, id: string): Promise<BacktestRecord | null>;
  /** The user's backtests, newest first, optionally only of one strategy and/or one status (both must match). */
  list(userId: string, page: PageRequest, filter?: { strategyId?: string; status?: BacktestStatus }): Promise<BacktestRecord[]>;
  /**
   * Applies `patch` only if the backtest is currently in one of the `from` statuses, atomically
   * (a compare-and-set: of two concurrent transitions from the same status, exactly one wins).
   * Returns the updated record, or null if it was not in a `from` status or does not exist.
   * Not scoped to a user: for workers and the service, after ownership was checked.
   */
  transition(id: string, from: readonly BacktestStatus[], patch: BacktestPatch): Promise<BacktestRecord | null>;
  /** Backtests in the given statuses, oldest first, across users (for recovery at start). */
  listByStatus(statuses: readonly BacktestStatus[], limit: number): Promise<BacktestRecord[]>;
  /** Number of the user's backtests created at or after `since`. */
  countCreatedSince(userId: string, since: string): Promise<number>;
  /**
   * Number of the user's backtests of the strategy (any version, any status) created strictly
   * before `before`: the search effort a verification record counts. 0 for another user's strategy.
   */
  countForStrategy(userId: string, strategyId: string, before: string): Promise<number>;
  /**
   * Stores the results, replacing earlier ones and all their trades, atomically (in the caller's
   * transaction if there is one): a reader sees the old results or the new ones, never a mix.
   */
  saveResult(result: BacktestResultRecord): Promise<void>;
  /**
   * The results of the user's backtest without its trades, or null if there are none (or it is
   * not the user's). Reads no trade, however many are stored.
   */
  getResult(userId: string, backtestId: string): Promise<BacktestResultSummary | null>;
  /**
   * The user's backtest's stored trades with `seq` greater than `afterSeq` (all when absent), in
   * `seq` order, at most `limit`. Reads only those rows. Empty if there are none, or the backtest
   * is missing or not the user's. Trades are JSON as saved.
   */
  listTrades(userId: string, backtestId: string, page: { limit: number; afterSeq?: number }): Promise<BacktestTradeRecord[]>;
  /**
   * Stores the strategy's log lines of the backtest, in the order given (`seq` 0, 1, 2...),
   * replacing every line stored for it before, atomically (in the caller's transaction if there
   * is one): a reader sees the old lines or the new ones, never a mix or a part. An empty list
   * leaves none. Throws if there is no such backtest. The lines are deleted with the backtest.
   */
  saveLogs(backtestId: string, lines: readonly BacktestLogRecord[]): Promise<void>;
  /**
   * The user's backtest's log lines, oldest first (timestamp, then `seq`), at or after `since`
   * when given, strictly after the position `after` when given, at most `limit`. Reads only
   * those rows. Empty if there are none, or the backtest is missing or not the user's.
   */
  listLogs(userId: string, backtestId: string, options: { since?: string; after?: LogPosition; limit: number }): Promise<StoredBacktestLogRecord[]>;
}

export interface CandleRepository {
  /** Inserts or replaces chunks, keyed by (source, symbol, timeframe, day). */
  putChunks(chunks: CandleChunkRecord[]): Promise<void>;
  /** Chunks whose day is within [fromDay, toDay], in day order. */
  getChunks(source: string, symbol: string, timeframe: string, fromDay: string, toDay: string): Promise<CandleChunkRecord[]>;
  /**
   * How many chunks have their day within [fromDay, toDay] and the sum of their `count`, without
   * reading their data (so a caller learns whether a range is cached at the cost of one query).
   */
  countChunks(source: string, symbol: string, timeframe: string, fromDay: string, toDay: string): Promise<{ days: number; candles: number }>;
  /** The sources that hold any chunk of this symbol and timeframe. */
  listSources(symbol: string, timeframe: string): Promise<string[]>;
}

/**
 * Funding rates packed by day: `data` holds `count` events as consecutive float64 pairs
 * `[timeMs, rate]`, little-endian, in time order. A chunk written with no event records a day
 * known to hold none.
 */
export interface FundingChunkRecord {
  source: string;
  symbol: string;
  /** UTC day `YYYY-MM-DD` the events fall in. */
  day: string;
  count: number;
  data: Uint8Array;
}

/**
 * The funding-rate cache, like `CandleRepository` without a timeframe: one chunk per (source,
 * symbol, UTC day). Not scoped to users (market data is shared).
 */
export interface FundingRateRepository {
  /** Inserts or replaces chunks, keyed by (source, symbol, day); the last of a key given twice wins. */
  putChunks(chunks: FundingChunkRecord[]): Promise<void>;
  /** Chunks whose day is within [fromDay, toDay], in day order; the bytes come back exactly as written. */
  getChunks(source: string, symbol: string, fromDay: string, toDay: string): Promise<FundingChunkRecord[]>;
  /** How many chunks have their day within [fromDay, toDay] and the sum of their `count`, without reading their data. */
  countChunks(source: string, symbol: string, fromDay: string, toDay: string): Promise<{ days: number; rates: number }>;
  /** The sources that hold any chunk of this symbol, in name order. */
  listSources(symbol: string): Promise<string[]>;
}

/** A stored exchange credential. Its secrets are sealed; only `keyHint` of the key is in clear. */
export interface CredentialRecord {
  id: string;
  userId: string;
  /** A ccxt exchange id, or `paper`. */
  exchange: string;
  label: string;
  testnet: boolean;
  /** The last 4 characters of the API key. */
  keyHint: string;
  /**
   * `{ apiKey, secret, password? }` as JSON, sealed by the SecretBox with aad
   * `credential:<id>:<userId>`. Stored as the exact bytes given.
   */
  secrets: SealedSecret;
  createdAt: string;
}

export interface CredentialRepository {
  /** Inserts a credential; throws if the id exists. */
  insert(credential: CredentialRecord): Promise<void>;
  /**
   * The user's credential, or null. With `forUpdate` inside a transaction, the row stays locked
   * against other transactions' writes until this one ends (as `strategies.findById`).
   */
  findById(userId: string, id: string, options?: { forUpdate?: boolean }): Promise<CredentialRecord | null>;
  /** The user's credentials, newest first. */
  list(userId: string, page: PageRequest): Promise<CredentialRecord[]>;
  /** Deletes the user's credential; false if there is no such credential. */
  delete(userId: string, id: string): Promise<boolean>;
}

/** The saved state of a paper account (the built-in simulated exchange): text only the paper exchange reads, and its version. */
export interface PaperAccountRecord {
  state: string;
  /** 1 for the first save, then one more per save. */
  version: number;
}

/**
 * Paper accounts, one per (credential, market type), kept between operations so that they
 * survive restarts and are shared by every process trading on them.
 */
export interface PaperAccountRepository {
  /** The account's saved state, or null if it was never saved. */
  load(credentialId: string, marketType: string): Promise<PaperAccountRecord | null>;
  /**
   * Saves `state` as version `expectedVersion + 1` only if the stored version is still
   * `expectedVersion` (0: nothing stored yet), in one statement: of two writers that loaded the
   * same version exactly one succeeds. False if another writer saved first.
   */
  save(credentialId: string, marketType: string, state: string, expectedVersion: number, updatedAt: string): Promise<boolean>;
  /** Deletes every saved account of the credential. */
  deleteForCredential(credentialId: string): Promise<void>;
}

export type OrderRecordStatus = 'pending' | 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'rejected';

/**
 * Statuses of an order that may still change on the exchange: `pending` (written, sent or
 * about to be, not yet acknowledged), `open` and `partially_filled`.
 */
export const OPEN_ORDER_STATUSES = ['pending', 'open', 'partially_filled'] as const satisfies readonly OrderRecordStatus[];

/**
 * A live order of a deployment. It is inserted with status `pending` BEFORE it is sent to the
 * exchange, under a unique `clientOrderId` the exchange also gets, so an order whose sending
 * was interrupted (crash, timeout) is found again by that id and never sent twice.
 */
export interface OrderRecord {
  /** `ord_...` */
  id: string;
  userId: string;
  deploymentId: string;
  /** Unique across all orders; sent to the exchange with the order. */
  clientOrderId: string;
  /** The exchange's id, once acknowledged. */
  exchangeOrderId: string | null;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit' | 'stop';
  quantity: number;
  /** Limit price; null for market and stop orders. */
  price: number | null;
  /** Trigger price of a stop order; null otherwise. */
  stopPrice: number | null;
  reduceOnly: boolean;
  status: OrderRecordStatus;
  filledQuantity: number;
  averagePrice: number | null;
  fee: number;
  createdAt: string;
  updatedAt: string;
}

/** Fields that change as the exchange reports on an order. */
export type OrderPatch = Partial<Pick<OrderRecord, 'exchangeOrderId' | 'status' | 'filledQuantity' | 'averagePrice' | 'fee' | 'updatedAt'>>;

export interface OrderRepository {
  /** Inserts an order; throws if the id or the clientOrderId exists (the first is kept). */
  insert(order: OrderRecord): Promise<void>;
  /** The user's order, or null. */
  findById(userId: string, id: string): Promise<OrderRecord | null>;
  /**
   * The order with this client order id, or null. Not scoped to a user: for the deployment
   * supervisor, which resolves orders by the id the exchange echoes back.
   */
  findByClientOrderId(clientOrderId: string): Promise<OrderRecord | null>;
  /** The orders of the user's deployment, newest first; empty if the deployment is not the user's. */
  listByDeployment(userId: string, deploymentId: string, page: PageRequest): Promise<OrderRecord[]>;
  /**
   * The deployment's orders in an open status (`OPEN_ORDER_STATUSES`), oldest first. Not scoped
   * to a user: for the supervisor's reconciliation.
   */
  listOpen(deploymentId: string): Promise<OrderRecord[]>;
  /**
   * Applies `patch` (undefined fields are not changed) and returns the updated order, or null
   * if there is no such order. With `expectedStatus`, applies it only if the order's status is
   * currently one of them, atomically (compare-and-set: of two concurrent updates from the same
   * status, exactly one wins), and returns null otherwise. Not scoped to a user.
   */
  update(id: string, patch: OrderPatch, options?: { expectedStatus?: readonly OrderRecordStatus[] }): Promise<OrderRecord | null>;
}

/** The repositories, as seen inside or outside a transaction. */
export interface StoreRepositories {
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  strategies: StrategyRepository;
  deployments: DeploymentRepository;
  deploymentLogs: DeploymentLogRepository;
  backtests: BacktestRepository;
  optimizations: OptimizationRepository;
  candles: CandleRepository;
  fundingRates: FundingRateRepository;
  // Live trading (credentials and orders)
  credentials: CredentialRepository;
  orders: OrderRepository;
  paperAccounts: PaperAccountRepository;
  // Marketplace and billing (see store-marketplace-billing.ts)
  listings: ListingRepository;
  purchases: PurchaseRepository;
  reviews: ReviewRepository;
  billingCustomers: BillingCustomerRepository;
  subscriptions: SubscriptionRepository;
  processedEvents: ProcessedEventRepository;
  usageCounters: UsageCounterRepository;
  localInvoices: LocalInvoiceRepository;
  // Notifications (see store-notifications.ts)
  notificationChannels: NotificationChannelRepository;
  /** The outbox: events are written here in the transaction of the change that caused them. */
  notificationEvents: NotificationEventRepository;
  notificationDeliveries: NotificationDeliveryRepository;
  // Verified listings (see store-verification.ts)
  verificationRecords: VerificationRecordRepository;
  // Drift reports (see store-drift.ts)
  deploymentRecordings: DeploymentRecordingRepository;
  driftReports: DriftReportRepository;
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
