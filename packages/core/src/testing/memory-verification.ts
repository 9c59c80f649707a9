import type { StoreRepositories, VerificationRecordRow } from '../ports/store.js';
import { definedFields, stableChange } from './memory-helpers.js';

/** The verified listings part of the memory store's state: the records by id. */
export interface VerificationState {
  records: Map<string, VerificationRecordRow>;
}

export const emptyVerificationState = (): VerificationState => ({ records: new Map() });

/** Maps copied, records shared (records are replaced, never mutated). */
export const cloneVerificationState = (s: VerificationState): VerificationState => ({ records: new Map(s.records) });

type Change<T> = (state: VerificationState) => T;
type VerificationRepositories = Pick<StoreRepositories, 'verificationRecords'>;

/** JSON fields go through JSON, as in the SQL stores, so that what is not JSON shows up in tests. */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A copy of the forward record through JSON, with `points` as exactly its bytes in a buffer of their own. */
function copyForward(f: VerificationRecordRow['forward']): VerificationRecordRow['forward'] {
  const { points, ...forward } = f;
  return points === undefined ? jsonCopy(forward) : { ...jsonCopy(forward), points: new Uint8Array(points) };
}

/** A copy: JSON fields through JSON, as the SQL stores keep them. */
const copyRecord = (r: VerificationRecordRow): VerificationRecordRow => ({
  ...r,
  error: jsonCopy(r.error),
  identity: jsonCopy(r.identity),
  backtest: jsonCopy(r.backtest),
  forward: copyForward(r.forward),
  searchEffort: jsonCopy(r.searchEffort),
});

const oldestFirst = (a: VerificationRecordRow, b: VerificationRecordRow) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1;

/**
 * The memory store's verification record repository over `get()`; every change goes through
 * `write` (which, in a transaction, applies it to the draft and replays it at commit). `update`
 * is a `stableChange`: a commit whose compare-and-set outcome changed meanwhile fails.
 */
export function memoryVerificationRepositories(get: () => VerificationState, write: <T>(change: Change<T>) => T): VerificationRepositories {
  return {
    verificationRecords: {
      async insert(record) {
        const value = copyRecord(record);
        write((s) => {
          if (s.records.has(value.id)) throw new Error('Duplicate verification record id');
          s.records.set(value.id, value);
        });
      },

      async findById(id) {
        const r = get().records.get(id);
        return r ? copyRecord(r) : null;
      },

      async listByListing(listingId) {
        return [...get().records.values()]
          .filter((r) => r.listingId === listingId)
          .sort((a, b) => oldestFirst(b, a))
          .map(copyRecord);
      },

      async update(id, expectedUpdatedAt, patch) {
        const { forward, ...rest } = definedFields(patch);
        const value = forward === undefined ? jsonCopy(rest) : { ...jsonCopy(rest), forward: copyForward(forward) };
        const updated = write(
          stableChange(
            (s: VerificationState) => {
              const r = s.records.get(id);
              if (!r || r.updatedAt !== expectedUpdatedAt) return null;
              const next: VerificationRecordRow = { ...r, ...value };
              s.records.set(id, next);
              return next;
            },
            (r) => r !== null,
          ),
        );
        return updated ? copyRecord(updated) : null;
      },

      async listCurrent(statuses, limit, after) {
        return [...get().records.values()]
          .filter(
            (r) =>
              r.supersededAt === null &&
              statuses.includes(r.status) &&
              (!after || r.createdAt > after.createdAt || (r.createdAt === after.createdAt && r.id > after.id)),
          )
          .sort(oldestFirst)
          .slice(0, Math.max(0, limit))
          .map(copyRecord);
      },
    },
  };
}
