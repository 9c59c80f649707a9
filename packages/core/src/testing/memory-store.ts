import type {
  ApiKeyRecord,
  DeploymentRecord,
  PageRequest,
  Store,
  StoreRepositories,
  StrategyRecord,
  StrategyVersionRecord,
  UserRecord,
} from '../ports/store.js';
import { ACTIVE_DEPLOYMENT_STATUSES } from '../contract/deployments.js';

interface State {
  users: Map<string, UserRecord>;
  apiKeys: Map<string, ApiKeyRecord>;
  strategies: Map<string, StrategyRecord>;
  versions: Map<string, StrategyVersionRecord>;
  deployments: Map<string, DeploymentRecord>;
}

const emptyState = (): State => ({
  users: new Map(),
  apiKeys: new Map(),
  strategies: new Map(),
  versions: new Map(),
  deployments: new Map(),
});

const versionKey = (strategyId: string, version: number) => `${strategyId}#${version}`;

function newestFirst<T extends { createdAt: string; id: string }>(rows: Iterable<T>, page: PageRequest): T[] {
  const after = page.after;
  return [...rows]
    .filter((r) => !after || r.createdAt < after.createdAt || (r.createdAt === after.createdAt && r.id < after.id))
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
    .slice(0, page.limit);
}

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
  return {
    users: {
      async insert(user) {
        const value = structuredClone(user);
        write((s) => insertUnique(s.users, value.id, value, 'user id'));
      },
      async findById(id) { return copy(get().users.get(id)); },
    },
    apiKeys: {
      async insert(key) {
        const value = structuredClone(key);
        write((s) => insertUnique(s.apiKeys, value.hash, value, 'api key'));
      },
      async findUserIdByHash(hash) { return get().apiKeys.get(hash)?.userId ?? null; },
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
        return newestFirst([...get().strategies.values()].filter((s) => s.userId === userId), page).map((s) => structuredClone(s));
      },
      async update(userId, id, patch) {
        const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
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
        const value = structuredClone(deployment);
        write((s) => insertUnique(s.deployments, value.id, value, 'deployment id'));
      },
      async findById(userId, id) {
        const d = get().deployments.get(id);
        return d && d.userId === userId ? copy(d) : null;
      },
      async list(userId, page) {
        return newestFirst([...get().deployments.values()].filter((d) => d.userId === userId), page).map((d) => structuredClone(d));
      },
      async countActive(userId, filter = {}) {
        let n = 0;
        for (const d of get().deployments.values()) {
          if (d.userId !== userId || !(ACTIVE_DEPLOYMENT_STATUSES as readonly string[]).includes(d.status)) continue;
          if (filter.strategyId && d.strategyId !== filter.strategyId) continue;
          if (filter.credentialId && d.credentialId !== filter.credentialId) continue;
          n++;
        }
        return n;
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
        const draft: State = structuredClone(state);
        const log: Write<unknown>[] = [];
        const result = await fn(repositories(() => draft, log));
        if (log.length > 0) {
          // Replay on a copy, so that a write that no longer applies (a duplicate inserted
          // outside meanwhile) fails the whole transaction and leaves the live state untouched.
          const next: State = structuredClone(state);
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
