import {
  OPEN_ORDER_STATUSES,
  type CredentialRecord,
  type OrderRecord,
  type OrderRecordStatus,
  type PaperAccountRecord,
  type StoreRepositories,
} from '../ports/store.js';
import { definedFields, newestFirst, stableChange } from './memory-helpers.js';

/** The live-trading part of the memory store's state: credentials, orders and paper accounts. */
export interface LiveTradingState {
  credentials: Map<string, CredentialRecord>;
  orders: Map<string, OrderRecord>;
  /** Order id by client order id. */
  ordersByClientId: Map<string, string>;
  /** By `credentialId#marketType`. */
  paperAccounts: Map<string, PaperAccountRecord & { credentialId: string }>;
}

export const emptyLiveTradingState = (): LiveTradingState => ({
  credentials: new Map(),
  orders: new Map(),
  ordersByClientId: new Map(),
  paperAccounts: new Map(),
});

/** Maps copied, records shared (records are replaced, never mutated). */
export const cloneLiveTradingState = (s: LiveTradingState): LiveTradingState => ({
  credentials: new Map(s.credentials),
  orders: new Map(s.orders),
  ordersByClientId: new Map(s.ordersByClientId),
  paperAccounts: new Map(s.paperAccounts),
});

type Change<T> = (state: LiveTradingState) => T;
type LiveTradingRepositories = Pick<StoreRepositories, 'credentials' | 'orders' | 'paperAccounts'>;

const copyCredential = (c: CredentialRecord): CredentialRecord => ({ ...c, secrets: new Uint8Array(c.secrets) });
const copyOrder = (o: OrderRecord): OrderRecord => ({ ...o });

const oldestFirst = (a: OrderRecord, b: OrderRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1;

/**
 * The credential and order repositories over `get()`'s state; every write goes through `write`
 * (which, in a transaction, applies it to the draft and replays it at commit).
 */
export function memoryLiveTradingRepositories(get: () => LiveTradingState, write: <T>(change: Change<T>) => T): LiveTradingRepositories {
  return {
    credentials: {
      async insert(credential) {
        const value = copyCredential(credential);
        write((s) => {
          if (s.credentials.has(value.id)) throw new Error('Duplicate credential id');
          s.credentials.set(value.id, value);
        });
      },
      async findById(userId, id) {
        const c = get().credentials.get(id);
        return c && c.userId === userId ? copyCredential(c) : null;
      },
      async list(userId, page) {
        return newestFirst(
          [...get().credentials.values()].filter((c) => c.userId === userId),
          page,
        ).map(copyCredential);
      },
      async delete(userId, id) {
        return write((s) => {
          const c = s.credentials.get(id);
          if (!c || c.userId !== userId) return false;
          s.credentials.delete(id);
          return true;
        });
      },
    },

    paperAccounts: {
      async load(credentialId, marketType) {
        const a = get().paperAccounts.get(`${credentialId}#${marketType}`);
        return a ? { state: a.state, version: a.version } : null;
      },
      async save(credentialId, marketType, state, expectedVersion) {
        const key = `${credentialId}#${marketType}`;
        return write(
          stableChange(
            (s: LiveTradingState) => {
              if ((s.paperAccounts.get(key)?.version ?? 0) !== expectedVersion) return false;
              s.paperAccounts.set(key, { credentialId, state, version: expectedVersion + 1 });
              return true;
            },
            (saved) => saved,
          ),
        );
      },
      async deleteForCredential(credentialId) {
        write((s) => {
          for (const [key, a] of s.paperAccounts) if (a.credentialId === credentialId) s.paperAccounts.delete(key);
        });
      },
    },

    orders: {
      async insert(order) {
        const value = copyOrder(order);
        write((s) => {
          if (s.orders.has(value.id)) throw new Error('Duplicate order id');
          if (s.ordersByClientId.has(value.clientOrderId)) throw new Error('Duplicate client order id');
          s.orders.set(value.id, value);
          s.ordersByClientId.set(value.clientOrderId, value.id);
        });
      },
      async findById(userId, id) {
        const o = get().orders.get(id);
        return o && o.userId === userId ? copyOrder(o) : null;
      },
      async findByClientOrderId(clientOrderId) {
        const state = get();
        const id = state.ordersByClientId.get(clientOrderId);
        const o = id === undefined ? undefined : state.orders.get(id);
        return o ? copyOrder(o) : null;
      },
      async listByDeployment(userId, deploymentId, page) {
        const rows = [...get().orders.values()].filter((o) => o.userId === userId && o.deploymentId === deploymentId);
        return newestFirst(rows, page).map(copyOrder);
      },
      async listOpen(deploymentId) {
        const open: readonly string[] = OPEN_ORDER_STATUSES;
        return [...get().orders.values()]
          .filter((o) => o.deploymentId === deploymentId && open.includes(o.status))
          .sort(oldestFirst)
          .map(copyOrder);
      },
      async update(id, patch, options = {}) {
        const defined = definedFields(patch);
        const expected: readonly OrderRecordStatus[] | undefined = options.expectedStatus;
        // Inside a transaction this runs twice: on the draft, then replayed at commit on the
        // live state. If a write made outside meanwhile changed the outcome, the commit fails
        // instead of committing a compare-and-set that no longer holds.
        let applied: boolean | undefined;
        const updated = write((s) => {
          const o = s.orders.get(id);
          const applies = o !== undefined && (expected === undefined || expected.includes(o.status));
          if (applied !== undefined && applied !== applies) throw new Error(`Order ${id} was changed by a concurrent write`);
          applied = applies;
          if (!o || !applies) return null;
          const next: OrderRecord = { ...o, ...defined };
          s.orders.set(id, next);
          return next;
        });
        return updated ? copyOrder(updated) : null;
      },
    },
  };
}
