import { describe, expect, it } from 'vitest';
import type { OptimizationStatus } from '@stratbox/contract';
import type { OptimizationPatch, OptimizationRecord } from '../ports/store.js';
import { at, byNewestFirst, expectPagedOnce, tieIds, uid } from './contract-fixtures.js';
import {
  emptyOptimizationResults,
  finishedOptimization,
  optimization,
  optimizationResults,
  trial,
  trialMetrics,
  type OptimizationsContext,
} from './optimization-contract-fixtures.js';
import { describeOptimizationTrialsContract } from './store-contract-optimization-trials.js';

/*
 * The Store contract of optimizations (`store.optimizations`): records, results, deletion (with
 * their strategy too) and transactions; the trials in store-contract-optimization-trials.ts.
 * Run by `describeStoreContract` with its shared store and users.
 */

/** A timestamp in 1980, older than every other optimization: listByStatus is across users and tests. */
const early = (seconds: number) => new Date(Date.UTC(1980, 0, 1) + seconds * 1000).toISOString();

export function describeOptimizationsContract(context: OptimizationsContext): void {
  describe('optimizations', () => {
    /** Inserts an optimization of a new strategy of `owner`, or of `strategyId`. */
    async function inserted(owner: string, overrides: Partial<OptimizationRecord> = {}): Promise<OptimizationRecord> {
      const { store, insertStrategy } = context();
      const strategyId = overrides.strategyId ?? (await insertStrategy(owner)).id;
      const record = optimization(owner, strategyId, overrides);
      await store.optimizations.insert(record);
      return record;
    }

    describe('insert and findById', () => {
      it('finds an inserted optimization, equal to what was stored', async () => {
        const { store, userId, insertStrategy } = context();
        const { id: strategyId } = await insertStrategy(userId);
        const queued = optimization(userId, strategyId);
        const done = finishedOptimization(userId, strategyId);
        const walkForwardBest = finishedOptimization(userId, strategyId, {
          status: 'completed',
          error: null,
          best: { index: 3, fold: 2, params: {}, objective: -0.5, metrics: trialMetrics({ sharpe: -0.5, tradeCount: 0 }), backtestId: null },
        });
        for (const r of [queued, done, walkForwardBest]) await store.optimizations.insert(r);
        for (const r of [queued, done, walkForwardBest]) expect(await store.optimizations.findById(userId, r.id)).toEqual(r);
      });

      it("returns null for a missing optimization and for another user's", async () => {
        const { store, userId, otherUserId } = context();
        const theirs = await inserted(otherUserId);
        expect(await store.optimizations.findById(otherUserId, theirs.id)).toEqual(theirs);
        expect(await store.optimizations.findById(userId, theirs.id)).toBeNull();
        expect(await store.optimizations.findById(userId, uid('opt'))).toBeNull();
      });

      it('throws when the id exists, even for another user, and keeps the first', async () => {
        const { store, userId, otherUserId } = context();
        const record = await inserted(userId);
        await expect(store.optimizations.insert({ ...record, trialsTotal: 9 })).rejects.toThrow();
        await expect(store.optimizations.insert({ ...record, userId: otherUserId })).rejects.toThrow();
        expect(await store.optimizations.findById(userId, record.id)).toEqual(record);
        expect(await store.optimizations.findById(otherUserId, record.id)).toBeNull();
      });

      it('throws for an optimization of a missing strategy, and stores nothing', async () => {
        const { store, userId } = context();
        const orphan = optimization(userId, uid('str'));
        await expect(store.optimizations.insert(orphan)).rejects.toThrow();
        expect(await store.optimizations.findById(userId, orphan.id)).toBeNull();
      });

      it('is not changed by mutating the inserted or returned object', async () => {
        const { store, userId, insertStrategy } = context();
        const record = finishedOptimization(userId, (await insertStrategy(userId)).id);
        await store.optimizations.insert(record);
        const expected = structuredClone(record);
        record.spec.symbols.push('MUTATED');
        record.best!.params.fast = 'mutated';
        record.error!.message = 'mutated';
        const found = await store.optimizations.findById(userId, record.id);
        expect(found).toEqual(expected);
        found!.spec.params.fixed = 'mutated';
        found!.best!.metrics.sharpe = 0;
        expect(await store.optimizations.findById(userId, record.id)).toEqual(expected);
      });
    });

    describe('list', () => {
      it("lists only the user's optimizations, newest first, breaking ties by id, at most `limit`", async () => {
        const { store, userId, otherUserId, insertStrategy } = context();
        const { id: strategyId } = await insertStrategy(userId);
        const tied = tieIds('opt').map((id) => optimization(userId, strategyId, { id, createdAt: at(5) }));
        const others = [9, 3, 7, 0].map((s) => optimization(userId, strategyId, { createdAt: at(s) }));
        for (const r of [...tied, ...others]) await store.optimizations.insert(r);
        await inserted(otherUserId, { createdAt: at(6) });
        const expected = [...tied, ...others].sort(byNewestFirst);
        expect(await store.optimizations.list(userId, { limit: 50 })).toEqual(expected);
        expect(await store.optimizations.list(userId, { limit: 3 })).toEqual(expected.slice(0, 3));
        expect(await store.optimizations.list(uid('usr'), { limit: 50 })).toEqual([]);
      });

      it('pages with `after` through every row exactly once, across ties', async () => {
        const { store, userId, insertStrategy } = context();
        const { id: strategyId } = await insertStrategy(userId);
        const tied = tieIds('opt').map((id) => optimization(userId, strategyId, { id, createdAt: at(7) }));
        const others = [9, 8, 6, 5].map((s) => optimization(userId, strategyId, { createdAt: at(s) }));
        for (const r of [...tied, ...others]) await store.optimizations.insert(r);
        const expected = [...tied, ...others].sort(byNewestFirst);
        await expectPagedOnce((p) => store.optimizations.list(userId, p), expected);
      });

      it('filters by strategy, by status, and by both (both must match), page by page', async () => {
        const { store, userId, otherUserId, insertStrategy } = context();
        const [s1, s2] = [(await insertStrategy(userId)).id, (await insertStrategy(userId)).id];
        const rows: [string, OptimizationStatus][] = [
          [s1, 'queued'],
          [s1, 'running'],
          [s1, 'completed'],
          [s1, 'completed'],
          [s2, 'completed'],
          [s2, 'failed'],
          [s2, 'cancelled'],
        ];
        const records = rows.map(([strategyId, status], i) => optimization(userId, strategyId, { status, createdAt: at(i % 3) }));
        for (const r of records) await store.optimizations.insert(r);
        // Another user's optimizations of the same strategy and statuses never show.
        for (const [strategyId, status] of rows) await store.optimizations.insert(optimization(otherUserId, strategyId, { status }));
        const matching = (pred: (r: OptimizationRecord) => boolean) => records.filter(pred).sort(byNewestFirst);
        const list = (filter: { strategyId?: string; status?: OptimizationStatus }) => store.optimizations.list(userId, { limit: 50 }, filter);

        expect(await list({})).toEqual(matching(() => true));
        expect(await list({ strategyId: s1 })).toEqual(matching((r) => r.strategyId === s1));
        expect(await list({ status: 'completed' })).toEqual(matching((r) => r.status === 'completed'));
        expect(await list({ strategyId: s2, status: 'completed' })).toEqual(matching((r) => r.strategyId === s2 && r.status === 'completed'));
        expect(await list({ strategyId: s2, status: 'queued' })).toEqual([]);
        expect(await list({ strategyId: uid('str') })).toEqual([]);
        const bothMatch = matching((r) => r.strategyId === s1 && r.status === 'completed');
        await expectPagedOnce((p) => store.optimizations.list(userId, p, { strategyId: s1, status: 'completed' }), bothMatch, [1, 2]);
      });
    });

    describe('transition', () => {
      it('applies the patch from a `from` status and returns the record after; null and no change otherwise', async () => {
        const { store, userId } = context();
        const record = await inserted(userId);
        const started = await store.optimizations.transition(record.id, ['queued'], { status: 'running', startedAt: at(30), attempts: 1 });
        expect(started).toEqual({ ...record, status: 'running', startedAt: at(30), attempts: 1 });
        expect(await store.optimizations.transition(record.id, ['queued', 'completed'], { status: 'cancelled' })).toBeNull();
        expect(await store.optimizations.transition(record.id, [], { status: 'cancelled' })).toBeNull();
        expect(await store.optimizations.transition(uid('opt'), ['queued', 'running'], { status: 'cancelled' })).toBeNull();
        expect(await store.optimizations.findById(userId, record.id)).toEqual(started);
      });

      it('changes only the given fields, every one of them; an undefined field is not given', async () => {
        const { store, userId, insertStrategy } = context();
        const record = finishedOptimization(userId, (await insertStrategy(userId)).id, { status: 'running', error: null, finishedAt: null });
        await store.optimizations.insert(record);
        const progressed = await store.optimizations.transition(record.id, ['running'], { progress: 0.75, trialsDone: 150, best: undefined });
        expect(progressed).toEqual({ ...record, progress: 0.75, trialsDone: 150 });
        expect(await store.optimizations.transition(record.id, ['running'], {})).toEqual(progressed);
        const everything: Required<OptimizationPatch> = {
          status: 'completed',
          progress: 1,
          trialsDone: 200,
          best: { index: 9, fold: 1, params: { fast: '"9"' }, objective: 2.5, metrics: trialMetrics({ sharpe: 2.5, cagr: 0.5 }), backtestId: uid('bt') },
          computeMs: 98_765.4321,
          attempts: 3,
          startedAt: at(40),
          finishedAt: at(50),
          error: { code: 'TIMEOUT', message: 'too slow ✗' },
        };
        expect(await store.optimizations.transition(record.id, ['running'], everything)).toEqual({ ...record, ...everything });
        const cleared: OptimizationPatch = { status: 'queued', best: null, error: null, startedAt: null, finishedAt: null };
        expect(await store.optimizations.transition(record.id, ['completed'], cleared)).toEqual({ ...record, ...everything, ...cleared });
        expect(await store.optimizations.findById(userId, record.id)).toEqual({ ...record, ...everything, ...cleared });
      });

      it('lets exactly one of 10 concurrent transitions from the same status win, also in transactions', async () => {
        const { store, userId } = context();
        for (const inTransactions of [false, true]) {
          const record = await inserted(userId);
          const results = await Promise.all(
            Array.from({ length: 10 }, (_, i) => {
              const patch: OptimizationPatch = { status: 'running', attempts: i + 1 };
              return inTransactions
                ? store.transaction((tx) => tx.optimizations.transition(record.id, ['queued'], patch))
                : store.optimizations.transition(record.id, ['queued'], patch);
            }),
          );
          const winners = results.filter((r) => r !== null);
          expect(winners).toHaveLength(1);
          expect(winners[0]).toEqual({ ...record, status: 'running', attempts: results.indexOf(winners[0]!) + 1 });
          expect(await store.optimizations.findById(userId, record.id)).toEqual(winners[0]);
        }
      });
    });

    describe('listByStatus', () => {
      it('lists optimizations in the given statuses, oldest first, across users, at most `limit`, strictly after `after`', async () => {
        const { store, userId, otherUserId, insertStrategy } = context();
        const mineStrategy = (await insertStrategy(userId)).id;
        const theirStrategy = (await insertStrategy(otherUserId)).id;
        const rows: [string, OptimizationStatus, number][] = [
          [userId, 'running', 40],
          [otherUserId, 'queued', 10],
          [userId, 'completed', 5],
          [otherUserId, 'running', 30],
          [userId, 'queued', 20],
          [userId, 'queued', 20],
          [otherUserId, 'failed', 1],
          [userId, 'queued', 50],
        ];
        const records = rows.map(([owner, status, s]) => optimization(owner, owner === userId ? mineStrategy : theirStrategy, { status, createdAt: early(s) }));
        for (const r of records) await store.optimizations.insert(r);
        const mine = new Set(records.map((r) => r.id));
        const oldestFirst = (statuses: OptimizationStatus[]) =>
          records
            .filter((r) => statuses.includes(r.status))
            .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));

        const active = oldestFirst(['queued', 'running']);
        expect(await store.optimizations.listByStatus(['running', 'queued'], active.length)).toEqual(active);
        expect(await store.optimizations.listByStatus(['queued', 'running'], 2)).toEqual(active.slice(0, 2));
        // Paging on (createdAt, id), across the tie at 20 s.
        const paged: OptimizationRecord[] = [];
        for (let i = 0; i < 20; i++) {
          const last = paged[paged.length - 1];
          const page = await store.optimizations.listByStatus(['queued', 'running'], 2, last && { createdAt: last.createdAt, id: last.id });
          paged.push(...page.filter((r) => mine.has(r.id)));
          if (page.length < 2 || page.some((r) => !mine.has(r.id))) break;
        }
        expect(paged).toEqual(active);
        const ended = await store.optimizations.listByStatus(['completed', 'failed', 'cancelled'], 2);
        expect(ended).toEqual(oldestFirst(['completed', 'failed', 'cancelled']).slice(0, 2));
        expect(await store.optimizations.listByStatus([], 10)).toEqual([]);
      });
    });

    describe('results', () => {
      const results = optimizationResults;

      it('getResult answers the saved results, the latest save replacing earlier ones; null before any', async () => {
        const { store, userId } = context();
        const record = await inserted(userId, { status: 'completed' });
        expect(await store.optimizations.getResult(userId, record.id)).toBeNull();
        await store.optimizations.saveResult(record.id, results(1));
        expect(await store.optimizations.getResult(userId, record.id)).toEqual(results(1));
        await store.optimizations.saveResult(record.id, results(3));
        expect(await store.optimizations.getResult(userId, record.id)).toEqual(results(3));
        await store.optimizations.saveResult(record.id, emptyOptimizationResults());
        expect(await store.optimizations.getResult(userId, record.id)).toEqual(emptyOptimizationResults());
        expect(await store.optimizations.findById(userId, record.id)).toEqual(record);
      });

      it("is null for another user's optimization or a missing one; saving for a missing one throws", async () => {
        const { store, userId, otherUserId } = context();
        const theirs = await inserted(otherUserId, { status: 'completed' });
        await store.optimizations.saveResult(theirs.id, results(2));
        expect(await store.optimizations.getResult(otherUserId, theirs.id)).toEqual(results(2));
        expect(await store.optimizations.getResult(userId, theirs.id)).toBeNull();
        expect(await store.optimizations.getResult(userId, uid('opt'))).toBeNull();
        const missing = uid('opt');
        await expect(store.optimizations.saveResult(missing, results(1))).rejects.toThrow();
        expect(await store.optimizations.getResult(userId, missing)).toBeNull();
      });
    });

    describe('delete', () => {
      it('deletes the optimization with its trials and results; its id and trial indexes are free again', async () => {
        const { store, userId } = context();
        const record = await inserted(userId);
        const kept = await inserted(userId, { strategyId: record.strategyId });
        for (const r of [record, kept]) {
          expect(await store.optimizations.saveTrials([trial(r.id, 0), trial(r.id, 1)])).toEqual([0, 1]);
          await store.optimizations.saveResult(r.id, optimizationResults(1, r.id));
        }
        expect(await store.optimizations.delete(userId, record.id)).toBe(true);
        expect(await store.optimizations.findById(userId, record.id)).toBeNull();
        expect(await store.optimizations.countTrials(record.id)).toBe(0);
        expect(await store.optimizations.listAllTrials(record.id)).toEqual([]);
        expect(await store.optimizations.getResult(userId, record.id)).toBeNull();
        expect(await store.optimizations.delete(userId, record.id)).toBe(false);
        // Nothing of it is left: the same id and indexes are stored anew.
        await store.optimizations.insert(record);
        expect(await store.optimizations.saveTrials([trial(record.id, 1)])).toEqual([1]);
        expect(await store.optimizations.getResult(userId, record.id)).toBeNull();
        // The other optimization keeps everything.
        expect(await store.optimizations.countTrials(kept.id)).toBe(2);
        expect(await store.optimizations.getResult(userId, kept.id)).toEqual(optimizationResults(1, kept.id));
      });

      it("returns false for a missing optimization or another user's, which keeps its trials", async () => {
        const { store, userId, otherUserId } = context();
        const theirs = await inserted(otherUserId);
        await store.optimizations.saveTrials([trial(theirs.id, 0)]);
        expect(await store.optimizations.delete(userId, theirs.id)).toBe(false);
        expect(await store.optimizations.delete(userId, uid('opt'))).toBe(false);
        expect(await store.optimizations.findById(otherUserId, theirs.id)).toEqual(theirs);
        expect(await store.optimizations.countTrials(theirs.id)).toBe(1);
      });

      it("goes with its strategy: deleting a strategy deletes its optimizations, their trials and results, and no other strategy's", async () => {
        const { store, userId } = context();
        const doomed = [await inserted(userId)];
        doomed.push(await inserted(userId, { strategyId: doomed[0]!.strategyId, status: 'completed' }));
        const kept = await inserted(userId);
        for (const r of [...doomed, kept]) {
          await store.optimizations.saveTrials([trial(r.id, 0), trial(r.id, 5)]);
          await store.optimizations.saveResult(r.id, optimizationResults(2, r.id));
        }
        expect(await store.strategies.delete(userId, doomed[0]!.strategyId)).toBe(true);
        for (const r of doomed) {
          expect(await store.optimizations.findById(userId, r.id)).toBeNull();
          expect(await store.optimizations.countTrials(r.id)).toBe(0);
          expect(await store.optimizations.getResult(userId, r.id)).toBeNull();
        }
        expect(await store.optimizations.list(userId, { limit: 10 })).toEqual([kept]);
        expect(await store.optimizations.countTrials(kept.id)).toBe(2);
        expect(await store.optimizations.getResult(userId, kept.id)).toEqual(optimizationResults(2, kept.id));
      });
    });

    describe('transactions', () => {
      it('rolls back every write of optimizations, trials and results when the function throws', async () => {
        const { store, userId, insertStrategy } = context();
        const existing = await inserted(userId);
        await store.optimizations.saveTrials([trial(existing.id, 0)]);
        await store.optimizations.saveResult(existing.id, optimizationResults(1, 'before'));
        const fresh = optimization(userId, (await insertStrategy(userId)).id);
        const error = new Error('rollback');
        await expect(
          store.transaction(async (tx) => {
            await tx.optimizations.insert(fresh);
            expect(await tx.optimizations.saveTrials([trial(fresh.id, 0), trial(existing.id, 0), trial(existing.id, 1)])).toEqual([0, 1]);
            expect(await tx.optimizations.transition(existing.id, ['queued'], { status: 'running', trialsDone: 2 })).not.toBeNull();
            await tx.optimizations.saveResult(existing.id, optimizationResults(2, 'during'));
            expect(await tx.optimizations.countTrials(existing.id)).toBe(2);
            expect(await tx.optimizations.findById(userId, fresh.id)).toEqual(fresh);
            throw error;
          }),
        ).rejects.toBe(error);
        expect(await store.optimizations.findById(userId, fresh.id)).toBeNull();
        expect(await store.optimizations.countTrials(fresh.id)).toBe(0);
        expect(await store.optimizations.findById(userId, existing.id)).toEqual(existing);
        expect((await store.optimizations.listAllTrials(existing.id)).map((t) => t.index)).toEqual([0]);
        expect(await store.optimizations.getResult(userId, existing.id)).toEqual(optimizationResults(1, 'before'));
        // The trial rolled back was never stored: saving it again reports it.
        expect(await store.optimizations.saveTrials([trial(existing.id, 0), trial(existing.id, 1)])).toEqual([1]);
      });

      it('rolls back a delete, keeping the optimization with its trials and results', async () => {
        const { store, userId } = context();
        const record = await inserted(userId);
        await store.optimizations.saveTrials([trial(record.id, 3)]);
        await store.optimizations.saveResult(record.id, optimizationResults(1, 'kept'));
        const error = new Error('rollback');
        await expect(
          store.transaction(async (tx) => {
            expect(await tx.optimizations.delete(userId, record.id)).toBe(true);
            expect(await tx.optimizations.findById(userId, record.id)).toBeNull();
            throw error;
          }),
        ).rejects.toBe(error);
        expect(await store.optimizations.findById(userId, record.id)).toEqual(record);
        expect(await store.optimizations.countTrials(record.id)).toBe(1);
        expect(await store.optimizations.getResult(userId, record.id)).toEqual(optimizationResults(1, 'kept'));
      });
    });

    describeOptimizationTrialsContract(context);
  });
}
