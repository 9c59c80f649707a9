import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  OptimizationPatch,
  OptimizationRecord,
  OptimizationRepository,
  OptimizationResults,
  OptimizationStatus,
  OptimizationTrialRecord,
  OptimizationTrialView,
} from '@stratbox/core';
import type { OptimizationsTable, OptimizationTrialsTable } from '../schema.js';
import { float64Bytes, float64Values } from './float64-bytes.js';
import type { QueryContext } from './query-context.js';

/** Trials written by one insert: at most this many rows (11 parameters each)... */
const TRIAL_BATCH_ROWS = 200;
/** ...and about this many bytes of returns (a year of hourly returns is 70 KB a trial). */
const TRIAL_BATCH_BYTES = 4 * 1024 * 1024;

const json = (value: unknown) => JSON.stringify(value);
const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

function toRow(o: OptimizationRecord): Insertable<OptimizationsTable> {
  return {
    id: o.id,
    user_id: o.userId,
    strategy_id: o.strategyId,
    strategy_version: o.strategyVersion,
    status: o.status,
    progress: o.progress,
    trials_done: o.trialsDone,
    trials_total: o.trialsTotal,
    spec: json(o.spec),
    best: o.best === null ? null : json(o.best),
    compute_ms: o.computeMs,
    attempts: o.attempts,
    created_at: o.createdAt,
    started_at: o.startedAt,
    finished_at: o.finishedAt,
    error: o.error === null ? null : json({ code: o.error.code, message: o.error.message }),
  };
}

function toOptimization(row: Selectable<OptimizationsTable>): OptimizationRecord {
  return {
    id: row.id,
    userId: row.user_id,
    strategyId: row.strategy_id,
    strategyVersion: row.strategy_version,
    status: row.status as OptimizationStatus,
    progress: row.progress,
    trialsDone: row.trials_done,
    trialsTotal: row.trials_total,
    spec: JSON.parse(row.spec) as OptimizationRecord['spec'],
    best: parsed<OptimizationRecord['best']>(row.best),
    computeMs: row.compute_ms,
    attempts: row.attempts,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    error: parsed<OptimizationRecord['error']>(row.error),
  };
}

/** The columns a patch sets; undefined fields are not given. */
function toUpdate(patch: OptimizationPatch): Updateable<OptimizationsTable> {
  const set: Updateable<OptimizationsTable> = {};
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.progress !== undefined) set.progress = patch.progress;
  if (patch.trialsDone !== undefined) set.trials_done = patch.trialsDone;
  if (patch.best !== undefined) set.best = patch.best === null ? null : json(patch.best);
  if (patch.computeMs !== undefined) set.compute_ms = patch.computeMs;
  if (patch.attempts !== undefined) set.attempts = patch.attempts;
  if (patch.startedAt !== undefined) set.started_at = patch.startedAt;
  if (patch.finishedAt !== undefined) set.finished_at = patch.finishedAt;
  if (patch.error !== undefined) set.error = patch.error === null ? null : json({ code: patch.error.code, message: patch.error.message });
  return set;
}

const toTrialRow = (t: OptimizationTrialRecord): Insertable<OptimizationTrialsTable> => ({
  optimization_id: t.optimizationId,
  index: t.index,
  fold: t.fold,
  params: json(t.params),
  status: t.status,
  objective: t.objective,
  feasible: t.feasible ? 1 : 0,
  metrics: t.metrics === null ? null : json(t.metrics),
  error: t.error === null ? null : json({ code: t.error.code, message: t.error.message }),
  cpu_ms: t.cpuMs,
  returns: t.returns === null ? null : float64Bytes(t.returns),
});

/** Every column of a trial but its returns, which `listTrials` never reads. */
const VIEW_COLUMNS = ['optimization_id', 'index', 'fold', 'params', 'status', 'objective', 'feasible', 'metrics', 'error', 'cpu_ms'] as const;

function toTrialView(row: Omit<Selectable<OptimizationTrialsTable>, 'returns'>): OptimizationTrialView {
  return {
    optimizationId: row.optimization_id,
    index: Number(row.index),
    fold: row.fold === null ? null : Number(row.fold),
    params: JSON.parse(row.params) as Record<string, string>,
    status: row.status as OptimizationTrialView['status'],
    objective: row.objective,
    feasible: Number(row.feasible) === 1,
    metrics: parsed<NonNullable<OptimizationTrialView['metrics']>>(row.metrics),
    error: parsed<OptimizationTrialView['error']>(row.error),
    cpuMs: row.cpu_ms,
  };
}

/** Consecutive slices of `rows` of at most TRIAL_BATCH_ROWS rows and about TRIAL_BATCH_BYTES of returns. */
function batches(rows: Insertable<OptimizationTrialsTable>[]): Insertable<OptimizationTrialsTable>[][] {
  const out: Insertable<OptimizationTrialsTable>[][] = [];
  let batch: Insertable<OptimizationTrialsTable>[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.returns?.byteLength ?? 0;
    if (batch.length > 0 && (batch.length >= TRIAL_BATCH_ROWS || bytes + size > TRIAL_BATCH_BYTES)) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(row);
    bytes += size;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/** Trials in one order every call uses (optimization, then index), each (optimization, index) once: the first given. */
function uniqueInOrder(trials: readonly OptimizationTrialRecord[]): OptimizationTrialRecord[] {
  const unique = new Map<string, OptimizationTrialRecord>();
  for (const t of trials) {
    const key = JSON.stringify([t.optimizationId, t.index]);
    if (!unique.has(key)) unique.set(key, t);
  }
  return [...unique.values()].sort((a, b) => (a.optimizationId === b.optimizationId ? a.index - b.index : a.optimizationId < b.optimizationId ? -1 : 1));
}

/**
 * Optimizations, their trials and results. JSON as text; a trial's returns as little-endian
 * float64 bytes. Trials and results are deleted with their optimization, and optimizations with
 * their strategy (foreign keys, on delete cascade).
 */
export function createOptimizationRepository({ db, dialect }: QueryContext): OptimizationRepository {
  return {
    async insert(optimization) {
      await db.insertInto('optimizations').values(toRow(optimization)).execute();
    },

    async findById(userId, id) {
      const row = await db.selectFrom('optimizations').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return row ? toOptimization(row) : null;
    },

    async list(userId, { limit, after }, filter = {}) {
      let query = db.selectFrom('optimizations').selectAll().where('user_id', '=', userId);
      if (filter.strategyId !== undefined) query = query.where('strategy_id', '=', filter.strategyId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toOptimization);
    },

    async transition(id, from, patch) {
      if (from.length === 0) return null;
      const set = toUpdate(patch);
      // One statement, so the status check and the change are atomic (as backtests.transition).
      const row = await db
        .updateTable('optimizations')
        .set(Object.keys(set).length > 0 ? set : (eb) => ({ status: eb.ref('status') }))
        .where('id', '=', id)
        .where('status', 'in', [...from])
        .returningAll()
        .executeTakeFirst();
      return row ? toOptimization(row) : null;
    },

    async listByStatus(statuses, limit, after) {
      if (statuses.length === 0) return [];
      let query = db
        .selectFrom('optimizations')
        .selectAll()
        .where('status', 'in', [...statuses]);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(Math.max(0, limit)).execute();
      return rows.map(toOptimization);
    },

    async saveTrials(trials) {
      const rows = uniqueInOrder(trials).map(toTrialRow);
      if (rows.length === 0) return [];
      // Insert-if-absent: RETURNING answers only the rows this statement inserted. A row a
      // concurrent call is inserting waits for it (PostgreSQL), then counts as present; every
      // call inserts in the same order, so two calls never wait for each other.
      const run = async (trx: typeof db) => {
        const inserted: number[] = [];
        for (const batch of batches(rows)) {
          const stored = await trx
            .insertInto('optimization_trials')
            .values(batch)
            .onConflict((oc) => oc.columns(['optimization_id', 'index']).doNothing())
            .returning('index')
            .execute();
          for (const r of stored) inserted.push(Number(r.index));
        }
        return inserted;
      };
      const inserted = rows.length <= TRIAL_BATCH_ROWS || db.isTransaction ? await run(db) : await db.transaction().execute(run);
      return inserted.sort((a, b) => a - b);
    },

    async sumTrialsForStrategy(userId, strategyId, before) {
      const row = await db
        .selectFrom('optimizations')
        .select((eb) => eb.fn.sum<number | string | bigint | null>('trials_done').as('sum'))
        .where('user_id', '=', userId)
        .where('strategy_id', '=', strategyId)
        .where('created_at', '<', before)
        .executeTakeFirstOrThrow();
      return Number(row.sum ?? 0);
    },

    async countTrials(optimizationId) {
      const row = await db
        .selectFrom('optimization_trials')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
        .where('optimization_id', '=', optimizationId)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async listTrialCosts(optimizationId, { from, to }) {
      const rows = await db
        .selectFrom('optimization_trials')
        .select(['index', 'cpu_ms'])
        .where('optimization_id', '=', optimizationId)
        .where('index', '>=', from)
        .where('index', '<', to)
        .orderBy('index', 'asc')
        .execute();
      return rows.map((r) => ({ index: Number(r.index), cpuMs: Number(r.cpu_ms) }));
    },

    async listAllTrials(optimizationId) {
      const rows = await db.selectFrom('optimization_trials').selectAll().where('optimization_id', '=', optimizationId).orderBy('index', 'asc').execute();
      return rows.map((row) => ({ ...toTrialView(row), returns: row.returns === null ? null : float64Values(row.returns) }));
    },

    async listTrials(userId, optimizationId, { sort, fold, offset, limit }) {
      // The user's optimization's trials (none of another user's).
      let query = db
        .selectFrom('optimization_trials as t')
        .innerJoin('optimizations as o', 'o.id', 't.optimization_id')
        .select(VIEW_COLUMNS.map((c) => `t.${c}` as const))
        .where('t.optimization_id', '=', optimizationId)
        .where('o.user_id', '=', userId);
      if (fold !== undefined) query = query.where('t.fold', '=', fold);
      query =
        sort === 'objective'
          ? query
              .orderBy('t.feasible', 'desc')
              // Null sorts lowest on SQLite (last when descending), highest on PostgreSQL.
              .orderBy('t.objective', dialect === 'postgres' ? (ob) => ob.desc().nullsLast() : 'desc')
              .orderBy('t.index', 'asc')
          : query.orderBy('t.index', 'asc');
      const rows = await query.limit(Math.max(0, limit)).offset(Math.max(0, offset)).execute();
      return rows.map(toTrialView);
    },

    async saveResult(optimizationId, results) {
      await db
        .insertInto('optimization_results')
        .values({ optimization_id: optimizationId, results: json(results) })
        .onConflict((oc) => oc.column('optimization_id').doUpdateSet((eb) => ({ results: eb.ref('excluded.results') })))
        .execute();
    },

    async getResult(userId, optimizationId) {
      const row = await db
        .selectFrom('optimization_results as r')
        .innerJoin('optimizations as o', 'o.id', 'r.optimization_id')
        .select('r.results')
        .where('r.optimization_id', '=', optimizationId)
        .where('o.user_id', '=', userId)
        .executeTakeFirst();
      return row ? (JSON.parse(row.results) as OptimizationResults) : null;
    },

    async delete(userId, id) {
      const result = await db.deleteFrom('optimizations').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
