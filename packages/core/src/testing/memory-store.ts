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

function insertUnique<K, V>(map: Map<K, V>, key: K, value: V, what: string) {
  if (map.has(key)) throw new Error(`Duplicate ${what}`);
  map.set(key, structuredClone(value));
}

const copy = <T>(value: T | undefined): T | null => (value === undefined ? null : structuredClone(value));

function repositories(get: () => State): StoreRepositories {
  return {
    users: {
      async insert(user) { insertUnique(get().users, user.id, user, 'user id'); },
      async findById(id) { return copy(get().users.get(id)); },
    },
    apiKeys: {
      async insert(key) { insertUnique(get().apiKeys, key.hash, key, 'api key'); },
      async findUserIdByHash(hash) { return get().apiKeys.get(hash)?.userId ?? null; },
    },
    strategies: {
      async insert(strategy) { insertUnique(get().strategies, strategy.id, strategy, 'strategy id'); },
      async findById(userId, id) {
        const s = get().strategies.get(id);
        return s && s.userId === userId ? copy(s) : null;
      },
      async list(userId, page) {
        return newestFirst([...get().strategies.values()].filter((s) => s.userId === userId), page).map((s) => structuredClone(s));
      },
      async update(userId, id, patch) {
        const s = get().strategies.get(id);
        if (!s || s.userId !== userId) return false;
        const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
        get().strategies.set(id, { ...s, ...defined });
        return true;
      },
      async delete(userId, id) {
        const state = get();
        const s = state.strategies.get(id);
        if (!s || s.userId !== userId) return false;
        state.strategies.delete(id);
        for (const [key, v] of state.versions) if (v.strategyId === id) state.versions.delete(key);
        return true;
      },
      async insertVersion(version) {
        insertUnique(get().versions, versionKey(version.strategyId, version.version), version, 'strategy version');
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
      async insert(deployment) { insertUnique(get().deployments, deployment.id, deployment, 'deployment id'); },
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
 * on a copy of the state that replaces the live state only when it commits.
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
        const result = await fn(repositories(() => draft));
        state = draft;
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
