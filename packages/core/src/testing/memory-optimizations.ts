import type { OptimizationResults } from '@stratbox/contract';
import type { OptimizationRecord, OptimizationRepository, OptimizationTrialRecord, OptimizationTrialView } from '../ports/store.js';
import { definedFields, newestFirst, stableChange } from './memory-helpers.js';

/** The optimizations part of the memory store's state. */
export interface OptimizationsState {
  records: Map<string, OptimizationRecord>;
  /** Trials by optimization id, then index. An inner map is replaced on write, never mutated. */
  trials: Map<string, ReadonlyMap<number, OptimizationTrialRecord>>;
  /** Results (JSON) by optimization id. */
  results: Map<string, OptimizationResults>;
}

export const emptyOptimizationsState = (): OptimizationsState => ({ records: new Map(), trials: new Map(), results: new Map() });

/** Maps copied, records shared (records and inner trial maps are replaced, never mutated). */
export const cloneOptimizationsState = (s: OptimizationsState): OptimizationsState => ({
  records: new Map(s.records),
  trials: new Map(s.trials),
  results: new Map(s.results),
});

/** What the repository reads of the whole state: the strategies, which optimizations belong to. */
interface Host {
  strategies: ReadonlyMap<string, unknown>;
  optimizations: OptimizationsState;
}

/** JSON fields go through JSON, as in the SQL stores, so that what is not JSON shows up in tests. */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const copyRecord = (r: OptimizationRecord): OptimizationRecord => ({ ...r, spec: jsonCopy(r.spec), best: jsonCopy(r.best), error: jsonCopy(r.error) });

/** A copy; `returns` as exactly its values in a buffer of their own (not the view's whole buffer). */
const copyTrial = (t: OptimizationTrialRecord): OptimizationTrialRecord => ({
  ...t,
  params: jsonCopy(t.params),
  metrics: jsonCopy(t.metrics),
  error: jsonCopy(t.error),
  returns: t.returns === null ? null : new Float64Array(t.returns),
});

const toView = ({ returns: _returns, ...view }: OptimizationTrialRecord): OptimizationTrialView => ({
  ...view,
  params: { ...view.params },
  metrics: view.metrics === null ? null : structuredClone(view.metrics),
  error: view.error === null ? null : { ...view.error },
});

/** Feasible first, then objective descending (none last), then index. */
function byObjective(a: OptimizationTrialRecord, b: OptimizationTrialRecord): number {
  if (a.feasible !== b.feasible) return a.feasible ? -1 : 1;
  if (a.objective !== b.objective) {
    if (a.objective === null) return 1;
    if (b.objective === null) return -1;
    return a.objective > b.objective ? -1 : 1;
  }
  return a.index - b.index;
}

const oldestFirst = (a: OptimizationRecord, b: OptimizationRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1;

/** Deletes the strategy's optimizations with their trials and results, as the SQL stores' foreign key cascades. */
export function deleteOptimizationsOfStrategy(state: OptimizationsState, strategyId: string): void {
  for (const [id, r] of [...state.records]) if (r.strategyId === strategyId) deleteOptimization(state, id);
}

function deleteOptimization(state: OptimizationsState, id: string): void {
  state.records.delete(id);
  state.trials.delete(id);
  state.results.delete(id);
}

/**
 * The memory store's optimization repository over `get()`; every change goes through `write`
 * (replayed at commit inside a transaction). As the SQL stores' foreign keys: an optimization
 * belongs to an existing strategy, trials and results to an existing optimization.
 */
export function memoryOptimizationRepository<S extends Host>(get: () => S, write: <T>(change: (state: S) => T) => T): OptimizationRepository {
  const state = () => get().optimizations;
  const own = (userId: string, id: string) => {
    const r = state().records.get(id);
    return r && r.userId === userId ? r : undefined;
  };
  return {
    async insert(optimization) {
      const value = copyRecord(optimization);
      write((s) => {
        if (s.optimizations.records.has(value.id)) throw new Error('Duplicate optimization id');
        if (!s.strategies.has(value.strategyId)) throw new Error(`No strategy ${value.strategyId} for this optimization`);
        s.optimizations.records.set(value.id, value);
      });
    },

    async findById(userId, id) {
      const r = own(userId, id);
      return r ? copyRecord(r) : null;
    },

    async list(userId, page, filter = {}) {
      const rows = [...state().records.values()].filter(
        (r) =>
          r.userId === userId &&
          (filter.strategyId === undefined || r.strategyId === filter.strategyId) &&
          (filter.status === undefined || r.status === filter.status),
      );
      return newestFirst(rows, page).map(copyRecord);
    },

    async transition(id, from, patch) {
      const statuses = [...from];
      const defined = jsonCopy(definedFields(patch));
      const updated = write(
        stableChange(
          (s) => {
            const r = s.optimizations.records.get(id);
            if (!r || !statuses.includes(r.status)) return null;
            const next: OptimizationRecord = { ...r, ...defined };
            s.optimizations.records.set(id, next);
            return next;
          },
          (r) => r !== null,
        ),
      );
      return updated ? copyRecord(updated) : null;
    },

    async listByStatus(statuses, limit, after) {
      return [...state().records.values()]
        .filter((r) => statuses.includes(r.status) && (!after || r.createdAt > after.createdAt || (r.createdAt === after.createdAt && r.id > after.id)))
        .sort(oldestFirst)
        .slice(0, Math.max(0, limit))
        .map(copyRecord);
    },

    async saveTrials(trials) {
      const values = trials.map(copyTrial);
      return write(
        stableChange(
          (s) => {
            const { records, trials: stored } = s.optimizations;
            for (const t of values) if (!records.has(t.optimizationId)) throw new Error(`No optimization ${t.optimizationId} for these trials`);
            const changed = new Map<string, Map<number, OptimizationTrialRecord>>();
            const inserted: number[] = [];
            for (const t of values) {
              let next = changed.get(t.optimizationId);
              if (!next) {
                next = new Map(stored.get(t.optimizationId));
                changed.set(t.optimizationId, next);
              }
              if (next.has(t.index)) continue;
              next.set(t.index, t);
              inserted.push(t.index);
            }
            for (const [id, next] of changed) stored.set(id, next);
            return inserted.sort((a, b) => a - b);
          },
          (inserted) => inserted.join(','),
        ),
      );
    },

    async countTrials(optimizationId) {
      return state().trials.get(optimizationId)?.size ?? 0;
    },

    async sumTrialsForStrategy(userId, strategyId, before) {
      let sum = 0;
      for (const r of state().records.values()) if (r.userId === userId && r.strategyId === strategyId && r.createdAt < before) sum += r.trialsDone;
      return sum;
    },

    async listTrialCosts(optimizationId, { from, to }) {
      return [...(state().trials.get(optimizationId)?.values() ?? [])]
        .filter((t) => t.index >= from && t.index < to)
        .sort((a, b) => a.index - b.index)
        .map((t) => ({ index: t.index, cpuMs: t.cpuMs }));
    },

    async listAllTrials(optimizationId) {
      return [...(state().trials.get(optimizationId)?.values() ?? [])].sort((a, b) => a.index - b.index).map(copyTrial);
    },

    async listTrials(userId, optimizationId, { sort, fold, offset, limit }) {
      if (!own(userId, optimizationId)) return [];
      const rows = [...(state().trials.get(optimizationId)?.values() ?? [])].filter((t) => fold === undefined || t.fold === fold);
      rows.sort(sort === 'objective' ? byObjective : (a, b) => a.index - b.index);
      const from = Math.max(0, offset);
      return rows.slice(from, from + Math.max(0, limit)).map(toView);
    },

    async saveResult(optimizationId, results) {
      const value = jsonCopy(results);
      write((s) => {
        if (!s.optimizations.records.has(optimizationId)) throw new Error(`No optimization ${optimizationId} for these results`);
        s.optimizations.results.set(optimizationId, value);
      });
    },

    async getResult(userId, optimizationId) {
      const results = own(userId, optimizationId) && state().results.get(optimizationId);
      return results ? structuredClone(results) : null;
    },

    async delete(userId, id) {
      return write((s) => {
        const r = s.optimizations.records.get(id);
        if (!r || r.userId !== userId) return false;
        deleteOptimization(s.optimizations, id);
        return true;
      });
    },
  };
}
