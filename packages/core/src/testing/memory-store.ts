import type {
  ActiveDeploymentFilter,
  ApiKeyRecord,
  BacktestRecord,
  BacktestResultRecord,
  CandleChunkRecord,
  FundingChunkRecord,
  StoredBacktestLogRecord,
  StoredDeploymentLogRecord,
  DeploymentRecord,
  Store,
  StoreRepositories,
  StrategyRecord,
  StrategyVersionRecord,
  UserRecord,
} from '../ports/store.js';
import { definedFields, newestFirst } from './memory-helpers.js';
import { ACTIVE_DEPLOYMENT_STATUSES } from '@stratbox/contract';
import {
  cloneMarketplaceBillingState,
  emptyMarketplaceBillingState,
  memoryMarketplaceBillingRepositories,
  type MarketplaceBillingState,
} from './memory-marketplace-billing.js';
import { cloneLiveTradingState, emptyLiveTradingState, memoryLiveTradingRepositories, type LiveTradingState } from './memory-live-trading.js';
import {
  cloneOptimizationsState,
  deleteOptimizationsOfStrategy,
  emptyOptimizationsState,
  memoryOptimizationRepository,
  type OptimizationsState,
} from './memory-optimizations.js';
import { cloneNotificationsState, emptyNotificationsState, memoryNotificationRepositories, type NotificationsState } from './memory-notifications.js';
import { cloneVerificationState, emptyVerificationState, memoryVerificationRepositories, type VerificationState } from './memory-verification.js';
import { cloneDriftState, emptyDriftState, memoryDriftRepositories, type DriftState } from './memory-drift.js';

interface State {
  users: Map<string, UserRecord>;
  apiKeys: Map<string, ApiKeyRecord>;
  strategies: Map<string, StrategyRecord>;
  versions: Map<string, StrategyVersionRecord>;
  deployments: Map<string, DeploymentRecord>;
  /** Log entries of every deployment, in the order they were appended (never mutated, only replaced). */
  deploymentLogs: StoredDeploymentLogRecord[];
  /** The last `seq` given to a log entry. */
  deploymentLogSeq: number;
  /** Deployment leases by deployment id (records replaced, never mutated). */
  deploymentLeases: Map<string, { owner: string; until: string }>;
  backtests: Map<string, BacktestRecord>;
  /** By backtest id. */
  backtestResults: Map<string, BacktestResultRecord>;
  /** A backtest's log lines by backtest id, in `seq` order (arrays replaced, never mutated). */
  backtestLogs: Map<string, StoredBacktestLogRecord[]>;
  /** Optimizations, their trials and results (memory-optimizations.ts). */
  optimizations: OptimizationsState;
  /** By `chunkKey`. */
  candles: Map<string, CandleChunkRecord>;
  /** By `fundingKey`. */
  fundingChunks: Map<string, FundingChunkRecord>;
  /** Listings, purchases, reviews, subscriptions, usage... (memory-marketplace-billing.ts). */
  marketplaceBilling: MarketplaceBillingState;
  /** Credentials and live orders (memory-live-trading.ts). */
  liveTrading: LiveTradingState;
  /** Notification channels, the event outbox and deliveries (memory-notifications.ts). */
  notifications: NotificationsState;
  /** Verified listings' records (memory-verification.ts). */
  verification: VerificationState;
  /** Deployments' recordings, drift reports and thresholds (memory-drift.ts). */
  drift: DriftState;
}

const emptyState = (): State => ({
  users: new Map(),
  apiKeys: new Map(),
  strategies: new Map(),
  versions: new Map(),
  deployments: new Map(),
  deploymentLogs: [],
  deploymentLogSeq: 0,
  deploymentLeases: new Map(),
  backtests: new Map(),
  backtestResults: new Map(),
  backtestLogs: new Map(),
  optimizations: emptyOptimizationsState(),
  candles: new Map(),
  fundingChunks: new Map(),
  marketplaceBilling: emptyMarketplaceBillingState(),
  liveTrading: emptyLiveTradingState(),
  notifications: emptyNotificationsState(),
  verification: emptyVerificationState(),
  drift: emptyDriftState(),
});

/**
 * A copy of the state whose maps can change independently. The records in them are shared:
 * a stored record is never mutated, only replaced (writes store copies, reads return copies),
 * so this is as good as a deep copy without copying megabytes of candles and results.
 */
const cloneState = (s: State): State => ({
  users: new Map(s.users),
  apiKeys: new Map(s.apiKeys),
  strategies: new Map(s.strategies),
  versions: new Map(s.versions),
  deployments: new Map(s.deployments),
  deploymentLogs: s.deploymentLogs,
  deploymentLogSeq: s.deploymentLogSeq,
  deploymentLeases: new Map(s.deploymentLeases),
  backtests: new Map(s.backtests),
  backtestResults: new Map(s.backtestResults),
  backtestLogs: new Map(s.backtestLogs),
  optimizations: cloneOptimizationsState(s.optimizations),
  candles: new Map(s.candles),
  fundingChunks: new Map(s.fundingChunks),
  marketplaceBilling: cloneMarketplaceBillingState(s.marketplaceBilling),
  liveTrading: cloneLiveTradingState(s.liveTrading),
  notifications: cloneNotificationsState(s.notifications),
  verification: cloneVerificationState(s.verification),
  drift: cloneDriftState(s.drift),
});

const versionKey = (strategyId: string, version: number) => `${strategyId}#${version}`;
const chunkKey = (source: string, symbol: string, timeframe: string, day: string) => JSON.stringify([source, symbol, timeframe, day]);

/** A copy of exactly the bytes of `data` (not of the whole buffer it may be a view of). */
const copyBytes = (data: Uint8Array) => new Uint8Array(data);
const copyChunk = (c: CandleChunkRecord): CandleChunkRecord => ({ ...c, data: copyBytes(c.data) });
const fundingKey = (source: string, symbol: string, day: string) => JSON.stringify([source, symbol, day]);
const copyFundingChunk = (c: FundingChunkRecord): FundingChunkRecord => ({ ...c, data: copyBytes(c.data) });
const fundingWithin = (state: State, source: string, symbol: string, fromDay: string, toDay: string) =>
  [...state.fundingChunks.values()].filter((c) => c.source === source && c.symbol === symbol && c.day >= fromDay && c.day <= toDay);
const chunksWithin = (state: State, source: string, symbol: string, timeframe: string, fromDay: string, toDay: string) =>
  [...state.candles.values()].filter((c) => c.source === source && c.symbol === symbol && c.timeframe === timeframe && c.day >= fromDay && c.day <= toDay);

/** Results go through JSON, as in the SQL stores, so that what is not JSON shows up in tests. */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A change to the state, recorded in a transaction and replayed on the live state at commit. */
type Write<T = void> = (state: State) => T;

function insertUnique<K, V>(map: Map<K, V>, key: K, value: V, what: string) {
  if (map.has(key)) throw new Error(`Duplicate ${what}`);
  map.set(key, structuredClone(value));
}

const copy = <T>(value: T | undefined): T | null => (value === undefined ? null : structuredClone(value));

/**
 * The repositories over the state `get` returns. Every write goes through `write`, which
 * applies it and, inside a transaction, records it for the commit.
 */
function repositories(get: () => State, log?: Write<unknown>[]): StoreRepositories {
  const write = <T>(change: Write<T>): T => {
    const result = change(get());
    log?.push(change);
    return result;
  };
  /** The user's backtest's results, or undefined (missing, or another user's). */
  const ownResult = (userId: string, backtestId: string) => {
    const b = get().backtests.get(backtestId);
    return b && b.userId === userId ? get().backtestResults.get(backtestId) : undefined;
  };
  const activeDeployments = (userId: string, filter: ActiveDeploymentFilter) =>
    [...get().deployments.values()].filter(
      (d) =>
        d.userId === userId &&
        (ACTIVE_DEPLOYMENT_STATUSES as readonly string[]).includes(d.status) &&
        (!filter.strategyId || d.strategyId === filter.strategyId) &&
        (!filter.credentialId || d.credentialId === filter.credentialId),
    );
  return {
    ...memoryMarketplaceBillingRepositories(
      () => get().marketplaceBilling,
      (change) => write((state) => change(state.marketplaceBilling)),
    ),
    ...memoryLiveTradingRepositories(
      () => get().liveTrading,
      (change) => write((state) => change(state.liveTrading)),
    ),
    ...memoryNotificationRepositories(
      () => get().notifications,
      (change) => write((state) => change(state.notifications)),
    ),
    ...memoryVerificationRepositories(
      () => get().verification,
      (change) => write((state) => change(state.verification)),
    ),
    ...memoryDriftRepositories(
      () => get().drift,
      (change) => write((state) => change(state.drift)),
    ),
    users: {
      async insert(user) {
        const value = structuredClone(user);
        write((s) => insertUnique(s.users, value.id, value, 'user id'));
      },
      // Transactions run one at a time (see createMemoryStore): already serialized.
      async lock() {},
      async findById(id) {
        return copy(get().users.get(id));
      },
    },
    apiKeys: {
      async insert(key) {
        const value = structuredClone(key);
        write((s) => insertUnique(s.apiKeys, value.hash, value, 'api key'));
      },
      async findUserIdByHash(hash) {
        return get().apiKeys.get(hash)?.userId ?? null;
      },
    },
    strategies: {
      async insert(strategy) {
        const value = structuredClone(strategy);
        write((s) => insertUnique(s.strategies, value.id, value, 'strategy id'));
      },
      async findById(userId, id) {
        const s = get().strategies.get(id);
        return s && s.userId === userId ? copy(s) : null;
      },
      async list(userId, page) {
        return newestFirst(
          [...get().strategies.values()].filter((s) => s.userId === userId),
          page,
        ).map((s) => structuredClone(s));
      },
      async update(userId, id, patch) {
        const defined = definedFields(patch);
        return write((state) => {
          const s = state.strategies.get(id);
          if (!s || s.userId !== userId) return false;
          state.strategies.set(id, { ...s, ...defined });
          return true;
        });
      },
      async delete(userId, id) {
        return write((state) => {
          const s = state.strategies.get(id);
          if (!s || s.userId !== userId) return false;
          state.strategies.delete(id);
          for (const [key, v] of state.versions) if (v.strategyId === id) state.versions.delete(key);
          // As the SQL stores' foreign key: the strategy's optimizations go with it.
          deleteOptimizationsOfStrategy(state.optimizations, id);
          return true;
        });
      },
      async insertVersion(version) {
        const value = structuredClone(version);
        write((s) => insertUnique(s.versions, versionKey(value.strategyId, value.version), value, 'strategy version'));
      },
      async listVersions(userId, strategyId) {
        return [...get().versions.values()]
          .filter((v) => v.strategyId === strategyId && v.userId === userId)
          .sort((a, b) => b.version - a.version)
          .map(({ source: _source, ...info }) => ({ ...info }));
      },
      async getVersion(userId, strategyId, version) {
        const v = get().versions.get(versionKey(strategyId, version));
        return v && v.userId === userId ? copy(v) : null;
      },
    },
    deployments: {
      async insert(deployment) {
        const value = structuredClone({
          risk: null,
          leverage: null,
          marginMode: null,
          halt: null,
          preflight: null,
          reconciliation: null,
          riskState: null,
          acceptedPositions: null,
          ...deployment,
        });
        write((s) => insertUnique(s.deployments, value.id, value, 'deployment id'));
      },
      async findById(userId, id) {
        const d = get().deployments.get(id);
        return d && d.userId === userId ? copy(d) : null;
      },
      async list(userId, page) {
        return newestFirst(
          [...get().deployments.values()].filter((d) => d.userId === userId),
          page,
        ).map((d) => structuredClone(d));
      },
      async countActive(userId, filter = {}) {
        return activeDeployments(userId, filter).length;
      },
      async listActive(userId, filter = {}) {
        return newestFirst(activeDeployments(userId, filter), { limit: Number.MAX_SAFE_INTEGER }).map((d) => structuredClone(d));
      },
      async transition(id, from, patch) {
        const statuses = [...from];
        const defined = structuredClone(definedFields(patch));
        // As backtests.transition: replayed at commit; a changed outcome fails the transaction.
        let applied: boolean | undefined;
        const updated = write((state) => {
          const d = state.deployments.get(id);
          const applies = d !== undefined && statuses.includes(d.status);
          if (applied !== undefined && applied !== applies) throw new Error(`Deployment ${id} was changed by a concurrent write`);
          applied = applies;
          if (!d || !applies) return null;
          const next: DeploymentRecord = { ...d, ...defined };
          state.deployments.set(id, next);
          return next;
        });
        return copy(updated ?? undefined);
      },
      async update(id, patch) {
        const defined = structuredClone(definedFields(patch));
        const updated = write((state) => {
          const d = state.deployments.get(id);
          if (!d) return null;
          const next: DeploymentRecord = { ...d, ...defined };
          state.deployments.set(id, next);
          return next;
        });
        return copy(updated ?? undefined);
      },
      async delete(userId, id) {
        return write((state) => {
          const d = state.deployments.get(id);
          if (!d || d.userId !== userId) return false;
          state.deployments.delete(id);
          state.deploymentLeases.delete(id);
          state.deploymentLogs = state.deploymentLogs.filter((e) => e.deploymentId !== id);
          const live = state.liveTrading;
          for (const [orderId, o] of [...live.orders]) {
            if (o.deploymentId !== id) continue;
            live.orders.delete(orderId);
            live.ordersByClientId.delete(o.clientOrderId);
          }
          return true;
        });
      },
      async listByStatus(statuses, limit, after) {
        return [...get().deployments.values()]
          .filter((d) => statuses.includes(d.status) && (!after || d.createdAt > after.createdAt || (d.createdAt === after.createdAt && d.id > after.id)))
          .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1))
          .slice(0, Math.max(0, limit))
          .map((d) => structuredClone(d));
      },
      async listByStrategy(userId, strategyId, { createdFrom, limit }) {
        return [...get().deployments.values()]
          .filter((d) => d.userId === userId && d.strategyId === strategyId && d.createdAt >= createdFrom)
          .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1))
          .slice(0, Math.max(0, limit))
          .map((d) => structuredClone(d));
      },
      async acquireLease(deploymentId, owner, untilIso, nowIso) {
        // Decided and applied in one synchronous step (as the SQL stores' single UPDATE).
        return write((state) => {
          if (!state.deployments.has(deploymentId)) return false;
          const lease = state.deploymentLeases.get(deploymentId);
          if (lease && lease.owner !== owner && lease.until >= nowIso) return false;
          state.deploymentLeases.set(deploymentId, { owner, until: untilIso });
          return true;
        });
      },
      async renewLease(deploymentId, owner, untilIso, nowIso) {
        return write((state) => {
          const lease = state.deploymentLeases.get(deploymentId);
          if (!lease || lease.owner !== owner || lease.until < nowIso || !state.deployments.has(deploymentId)) return false;
          state.deploymentLeases.set(deploymentId, { owner, until: untilIso });
          return true;
        });
      },
      async releaseLease(deploymentId, owner) {
        write((state) => {
          if (state.deploymentLeases.get(deploymentId)?.owner === owner) state.deploymentLeases.delete(deploymentId);
        });
      },
    },
    deploymentLogs: {
      async append(entries) {
        if (entries.length === 0) return;
        write((state) => {
          const values = entries.map((e) => ({ ...e, seq: ++state.deploymentLogSeq }));
          state.deploymentLogs = [...state.deploymentLogs, ...values];
        });
      },
      async list(userId, deploymentId, { since, after, limit }) {
        const d = get().deployments.get(deploymentId);
        if (!d || d.userId !== userId) return [];
        const rows = get().deploymentLogs.filter(
          (e) =>
            e.deploymentId === deploymentId &&
            e.userId === userId &&
            (since === undefined || e.timestamp >= since) &&
            (after === undefined || e.timestamp > after.timestamp || (e.timestamp === after.timestamp && e.seq > after.seq)),
        );
        // Stable sort: equal timestamps keep the order they were appended in (seq).
        rows.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
        return rows.slice(0, Math.max(0, limit)).map((e) => ({ ...e }));
      },
    },
    backtests: {
      async insert(backtest) {
        const value = structuredClone(backtest);
        write((s) => insertUnique(s.backtests, value.id, value, 'backtest id'));
      },
      async findById(userId, id) {
        const b = get().backtests.get(id);
        return b && b.userId === userId ? copy(b) : null;
      },
      async list(userId, page, filter = {}) {
        const rows = [...get().backtests.values()].filter(
          (b) =>
            b.userId === userId &&
            (filter.strategyId === undefined || b.strategyId === filter.strategyId) &&
            (filter.status === undefined || b.status === filter.status),
        );
        return newestFirst(rows, page).map((b) => structuredClone(b));
      },
      async transition(id, from, patch) {
        const statuses = [...from];
        const defined = structuredClone(definedFields(patch));
        // Inside a transaction this runs twice: on the transaction's copy, then replayed at
        // commit on the live state. If a write made outside meanwhile changed the outcome, the
        // transaction fails instead of committing a compare-and-set that no longer holds.
        let applied: boolean | undefined;
        const updated = write((state) => {
          const b = state.backtests.get(id);
          const applies = b !== undefined && statuses.includes(b.status);
          if (applied !== undefined && applied !== applies) throw new Error(`Backtest ${id} was changed by a concurrent write`);
          applied = applies;
          if (!b || !applies) return null;
          const next: BacktestRecord = { ...b, ...defined };
          state.backtests.set(id, next);
          return next;
        });
        return copy(updated ?? undefined);
      },
      async listByStatus(statuses, limit) {
        return [...get().backtests.values()]
          .filter((b) => statuses.includes(b.status))
          .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1))
          .slice(0, Math.max(0, limit))
          .map((b) => structuredClone(b));
      },
      async countCreatedSince(userId, since) {
        let n = 0;
        for (const b of get().backtests.values()) if (b.userId === userId && b.createdAt >= since) n++;
        return n;
      },
      async countForStrategy(userId, strategyId, before) {
        let n = 0;
        for (const b of get().backtests.values()) if (b.userId === userId && b.strategyId === strategyId && b.createdAt < before) n++;
        return n;
      },
      async saveResult(result) {
        const value = jsonCopy(result);
        write((state) => {
          // As the SQL stores' foreign key: results belong to an existing backtest.
          if (!state.backtests.has(value.backtestId)) throw new Error(`No backtest ${value.backtestId} for these results`);
          state.backtestResults.set(value.backtestId, value);
        });
      },
      async getResult(userId, backtestId) {
        const r = ownResult(userId, backtestId);
        if (!r) return null;
        const { trades, ...rest } = r;
        return { ...structuredClone(rest), storedTradeCount: trades.length };
      },
      async listTrades(userId, backtestId, { limit, afterSeq = -1 }) {
        const trades = ownResult(userId, backtestId)?.trades ?? [];
        const from = Math.max(0, Math.floor(afterSeq) + 1);
        return trades.slice(from, from + Math.max(0, limit)).map((trade, i) => ({ seq: from + i, trade: structuredClone(trade) }));
      },
      async saveLogs(backtestId, lines) {
        const values = lines.map((l, seq) => ({ seq, timestamp: l.timestamp, level: l.level, message: l.message }));
        write((state) => {
          // As the SQL stores' foreign key: lines belong to an existing backtest.
          if (!state.backtests.has(backtestId)) throw new Error(`No backtest ${backtestId} for these log lines`);
          state.backtestLogs.set(backtestId, values);
        });
      },
      async listLogs(userId, backtestId, { since, after, limit }) {
        const b = get().backtests.get(backtestId);
        if (!b || b.userId !== userId) return [];
        const rows = (get().backtestLogs.get(backtestId) ?? []).filter(
          (e) =>
            (since === undefined || e.timestamp >= since) &&
            (after === undefined || e.timestamp > after.timestamp || (e.timestamp === after.timestamp && e.seq > after.seq)),
        );
        // Stable sort: equal timestamps keep their seq order.
        rows.sort((x, y) => (x.timestamp < y.timestamp ? -1 : x.timestamp > y.timestamp ? 1 : 0));
        return rows.slice(0, Math.max(0, limit)).map((e) => ({ ...e }));
      },
    },
    optimizations: memoryOptimizationRepository(get, write),
    candles: {
      async putChunks(chunks) {
        const values = chunks.map(copyChunk);
        write((state) => {
          for (const c of values) state.candles.set(chunkKey(c.source, c.symbol, c.timeframe, c.day), c);
        });
      },
      async getChunks(source, symbol, timeframe, fromDay, toDay) {
        return chunksWithin(get(), source, symbol, timeframe, fromDay, toDay)
          .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))
          .map(copyChunk);
      },
      async countChunks(source, symbol, timeframe, fromDay, toDay) {
        const chunks = chunksWithin(get(), source, symbol, timeframe, fromDay, toDay);
        return { days: chunks.length, candles: chunks.reduce((sum, c) => sum + c.count, 0) };
      },
      async listSources(symbol, timeframe) {
        const sources = new Set<string>();
        for (const c of get().candles.values()) if (c.symbol === symbol && c.timeframe === timeframe) sources.add(c.source);
        return [...sources].sort();
      },
    },
    fundingRates: {
      async putChunks(chunks) {
        const values = chunks.map(copyFundingChunk);
        write((state) => {
          for (const c of values) state.fundingChunks.set(fundingKey(c.source, c.symbol, c.day), c);
        });
      },
      async getChunks(source, symbol, fromDay, toDay) {
        return fundingWithin(get(), source, symbol, fromDay, toDay)
          .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))
          .map(copyFundingChunk);
      },
      async countChunks(source, symbol, fromDay, toDay) {
        const chunks = fundingWithin(get(), source, symbol, fromDay, toDay);
        return { days: chunks.length, rates: chunks.reduce((sum, c) => sum + c.count, 0) };
      },
      async listSources(symbol) {
        const sources = new Set<string>();
        for (const c of get().fundingChunks.values()) if (c.symbol === symbol) sources.add(c.source);
        return [...sources].sort();
      },
    },
  };
}

/**
 * An in-memory Store for tests and quick embedding. Transactions run one at a time; each works
 * on a copy of the state (so it sees its own writes) and records its writes, which are replayed
 * on the live state when it commits. Writes made outside transactions apply at once and are
 * never lost to a transaction that commits later.
 */
export function createMemoryStore(): Store {
  let state = emptyState();
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  const live = repositories(() => {
    if (closed) throw new Error('Store is closed');
    return state;
  });
  return {
    ...live,
    transaction<T>(fn: (tx: StoreRepositories) => Promise<T>): Promise<T> {
      const run = async () => {
        if (closed) throw new Error('Store is closed');
        const draft = cloneState(state);
        const log: Write<unknown>[] = [];
        const result = await fn(repositories(() => draft, log));
        if (log.length > 0) {
          // Replay on a copy, so that a write that no longer applies (a duplicate inserted
          // outside meanwhile) fails the whole transaction and leaves the live state untouched.
          const next = cloneState(state);
          for (const change of log) change(next);
          state = next;
        }
        return result;
      };
      const result = queue.then(run, run);
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      closed = true;
    },
  };
}
