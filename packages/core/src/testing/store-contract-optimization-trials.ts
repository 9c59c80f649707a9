import { describe, expect, it } from 'vitest';
import type { OptimizationTrialRecord } from '../ports/store.js';
import { uid } from './contract-fixtures.js';
import { comparableTrial, failedTrial, optimization, trial, trialMetrics, viewOf, type OptimizationsContext } from './optimization-contract-fixtures.js';

/*
 * The Store contract of an optimization's trials (`saveTrials`, `countTrials`, `listTrials`,
 * `listAllTrials`, `listTrialCosts`), run by `describeOptimizationsContract`.
 */

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

export function describeOptimizationTrialsContract(context: OptimizationsContext): void {
  describe('trials', () => {
    /** A new optimization of `owner` (of a new strategy), and its id. */
    async function newOptimization(owner = context().userId): Promise<string> {
      const { store, insertStrategy } = context();
      const record = optimization(owner, (await insertStrategy(owner)).id);
      await store.optimizations.insert(record);
      return record.id;
    }

    describe('saveTrials', () => {
      it('stores the trials not stored yet, keeps those stored as they are, and answers the indexes it stored', async () => {
        const { store } = context();
        const id = await newOptimization();
        const first = [trial(id, 2), failedTrial(id, 0), trial(id, 1)];
        expect(await store.optimizations.saveTrials(first)).toEqual([0, 1, 2]);
        // A redo after a crash: stored ones (even with other outcomes) stay, only new ones count.
        const redo = [trial(id, 1, { objective: 99, cpuMs: 1 }), trial(id, 0), trial(id, 3), trial(id, 4)];
        expect(await store.optimizations.saveTrials(redo)).toEqual([3, 4]);
        expect(await store.optimizations.saveTrials(redo)).toEqual([]);
        expect(await store.optimizations.saveTrials([])).toEqual([]);
        const all = await store.optimizations.listAllTrials(id);
        expect(all.map(comparableTrial)).toEqual([first[1]!, first[2]!, first[0]!, redo[2]!, redo[3]!].map(comparableTrial));
        expect(await store.optimizations.countTrials(id)).toBe(5);
      });

      it('lists the stored trials of an index range with their CPU time only (listTrialCosts)', async () => {
        const { store } = context();
        const id = await newOptimization();
        const other = await newOptimization();
        await store.optimizations.saveTrials([trial(id, 5, { cpuMs: 3.5 }), failedTrial(id, 2), trial(id, 9, { cpuMs: 1 }), trial(id, 10), trial(other, 6)]);
        const failedCpu = (await store.optimizations.listAllTrials(id)).find((t) => t.index === 2)!.cpuMs;
        expect(await store.optimizations.listTrialCosts(id, { from: 2, to: 10 })).toEqual([
          { index: 2, cpuMs: failedCpu },
          { index: 5, cpuMs: 3.5 },
          { index: 9, cpuMs: 1 },
        ]);
        expect(await store.optimizations.listTrialCosts(id, { from: 6, to: 9 })).toEqual([]);
        expect(await store.optimizations.listTrialCosts(uid('opt'), { from: 0, to: 100 })).toEqual([]);
      });

      it('stores an index given twice in one call once, the first given', async () => {
        const { store } = context();
        const id = await newOptimization();
        expect(await store.optimizations.saveTrials([trial(id, 7, { cpuMs: 1 }), trial(id, 7, { cpuMs: 2 }), trial(id, 8)])).toEqual([7, 8]);
        expect((await store.optimizations.listAllTrials(id)).map((t) => [t.index, t.cpuMs])).toEqual([
          [7, 1],
          [8, 8 + 12.5],
        ]);
      });

      it('throws for trials of a missing optimization, and stores none of the call', async () => {
        const { store } = context();
        const id = await newOptimization();
        const missing = uid('opt');
        await expect(store.optimizations.saveTrials([trial(id, 0), trial(missing, 0)])).rejects.toThrow();
        expect(await store.optimizations.countTrials(missing)).toBe(0);
        expect(await store.optimizations.countTrials(id)).toBe(0);
      });

      it('reports each index once between concurrent overlapping calls, also in transactions', async () => {
        const { store } = context();
        for (const inTransactions of [false, true]) {
          const id = await newOptimization();
          // Five calls over [0, 900), each overlapping the next by 150 indexes and all sharing [100, 110);
          // more trials than one insert statement of the SQL stores takes.
          const calls = range(0, 5).map((k) => [...range(k * 150, k * 150 + 300), ...range(100, 110)].map((i) => trial(id, i)));
          const answers = await Promise.all(
            calls.map((trials) => (inTransactions ? store.transaction((tx) => tx.optimizations.saveTrials(trials)) : store.optimizations.saveTrials(trials))),
          );
          const reported = answers.flat().sort((a, b) => a - b);
          expect(reported).toEqual(range(0, 900));
          answers.forEach((answer, k) => {
            expect(answer).toEqual([...answer].sort((a, b) => a - b));
            expect(answer.every((i) => calls[k]!.some((t) => t.index === i))).toBe(true);
          });
          expect(await store.optimizations.countTrials(id)).toBe(900);
        }
      });
    });

    describe('countTrials', () => {
      it('counts the trials stored for the optimization, whoever owns it, and 0 for none', async () => {
        const { store, otherUserId } = context();
        const id = await newOptimization(otherUserId);
        const other = await newOptimization();
        expect(await store.optimizations.countTrials(id)).toBe(0);
        await store.optimizations.saveTrials(range(0, 1_234).map((i) => (i % 5 ? trial(id, i) : failedTrial(id, i))));
        await store.optimizations.saveTrials([trial(other, 0)]);
        expect(await store.optimizations.countTrials(id)).toBe(1_234);
        expect(await store.optimizations.countTrials(other)).toBe(1);
        expect(await store.optimizations.countTrials(uid('opt'))).toBe(0);
      });
    });

    describe('returns', () => {
      it('reads the returns back bit for bit: -0, subnormals, extremes, infinities, a long series, a view into a larger buffer', async () => {
        const { store } = context();
        const id = await newOptimization();
        const edges = Float64Array.from([
          -0,
          0,
          5e-324,
          -5e-324,
          2.225_073_858_507_201e-308,
          Number.MAX_VALUE,
          -Number.MAX_VALUE,
          Number.EPSILON,
          Number.POSITIVE_INFINITY,
          Number.NEGATIVE_INFINITY,
          0.1 + 0.2,
          -1 / 3,
          1e300,
          -1e-300,
        ]);
        const long = Float64Array.from(range(0, 8_760), (i) => Math.sin(i) / (i + 1));
        const backing = Float64Array.from(range(0, 20), (i) => i - 0.5);
        const view = backing.subarray(3, 11);
        const trials = [
          trial(id, 0, { returns: edges }),
          trial(id, 1, { returns: long }),
          trial(id, 2, { returns: view }),
          trial(id, 3, { returns: new Float64Array(0) }),
          failedTrial(id, 4),
        ];
        await store.optimizations.saveTrials(trials);
        const read = await store.optimizations.listAllTrials(id);
        expect(read.map(comparableTrial)).toEqual(trials.map(comparableTrial));
        expect(Object.is(read[0]!.returns![0], -0)).toBe(true);
        expect(read[2]!.returns).toEqual(Float64Array.from(range(3, 11), (i) => i - 0.5));
        for (const t of read.slice(0, 4)) expect(t.returns).toBeInstanceOf(Float64Array);
        expect(read[3]!.returns).toHaveLength(0);
        expect(read[4]!.returns).toBeNull();
        // What a caller does to the values it gave or got changes nothing stored.
        const stored = comparableTrial(read[1]!);
        long[5] = 42;
        read[1]!.returns![0] = 42;
        expect(comparableTrial((await store.optimizations.listAllTrials(id))[1]!)).toEqual(stored);
      });
    });

    describe('listTrials', () => {
      /**
       * Trials of one optimization in two folds, shuffled by index: feasible with ties on the
       * objective, infeasible with and without an objective, failed.
       */
      function mixedTrials(id: string): OptimizationTrialRecord[] {
        const objectives: Array<[number | null, boolean]> = [
          [0.5, true],
          [2, true],
          [null, false],
          [-1, true],
          [3, false],
          [2, true],
          [Number.POSITIVE_INFINITY, true],
          [0.5, false],
          [null, false],
          [-0.25, true],
          [2, false],
          [-7, false],
        ];
        return objectives.map(([objective, feasible], k) => {
          const index = (k * 5) % 12;
          const fold = index % 2;
          // One failed trial, one completed without an objective (its metric undefined).
          return k === 2
            ? failedTrial(id, index, { fold })
            : trial(id, index, { fold, objective, feasible, status: 'completed', metrics: trialMetrics({ tradeCount: k }) });
        });
      }

      const byIndex = (a: OptimizationTrialRecord, b: OptimizationTrialRecord) => a.index - b.index;
      /** The port's objective order, written out: feasible first, then objective descending with none last, then index. */
      const byObjective = (a: OptimizationTrialRecord, b: OptimizationTrialRecord) =>
        Number(b.feasible) - Number(a.feasible) ||
        (a.objective === b.objective ? 0 : a.objective === null ? 1 : b.objective === null ? -1 : b.objective - a.objective > 0 ? 1 : -1) ||
        a.index - b.index;

      it('sorts by index, or by objective (feasible first, objective descending, none last, then index), without returns', async () => {
        const { store, userId } = context();
        const id = await newOptimization();
        const trials = mixedTrials(id);
        await store.optimizations.saveTrials(trials);
        const list = (sort: 'index' | 'objective') => store.optimizations.listTrials(userId, id, { sort, offset: 0, limit: 100 });
        expect(await list('index')).toEqual([...trials].sort(byIndex).map(viewOf));
        const ranked = await list('objective');
        expect(ranked).toEqual([...trials].sort(byObjective).map(viewOf));
        expect(ranked.map((t) => [t.feasible, t.objective])).toEqual([
          [true, Number.POSITIVE_INFINITY],
          [true, 2],
          [true, 2],
          [true, 0.5],
          [true, -0.25],
          [true, -1],
          [false, 3],
          [false, 2],
          [false, 0.5],
          [false, -7],
          [false, null],
          [false, null],
        ]);
        for (const t of ranked) expect(t).not.toHaveProperty('returns');
      });

      it('filters by fold and pages by offset and limit, every row once', async () => {
        const { store, userId } = context();
        const id = await newOptimization();
        const trials = mixedTrials(id);
        await store.optimizations.saveTrials(trials);
        for (const sort of ['index', 'objective'] as const) {
          const order = sort === 'index' ? byIndex : byObjective;
          for (const fold of [undefined, 0, 1]) {
            const expected = trials
              .filter((t) => fold === undefined || t.fold === fold)
              .sort(order)
              .map(viewOf);
            for (const limit of [1, 2, 5]) {
              const pages: unknown[] = [];
              for (let offset = 0; offset <= expected.length; offset += limit) {
                const options = fold === undefined ? { sort, offset, limit } : { sort, fold, offset, limit };
                pages.push(...(await store.optimizations.listTrials(userId, id, options)));
              }
              expect(pages).toEqual(expected);
            }
          }
          expect(await store.optimizations.listTrials(userId, id, { sort, fold: 7, offset: 0, limit: 10 })).toEqual([]);
          expect(await store.optimizations.listTrials(userId, id, { sort, offset: 50, limit: 10 })).toEqual([]);
          expect(await store.optimizations.listTrials(userId, id, { sort, offset: 0, limit: 0 })).toEqual([]);
        }
      });

      it("is empty for another user's optimization, a missing one, or one without trials", async () => {
        const { store, userId, otherUserId } = context();
        const theirs = await newOptimization(otherUserId);
        await store.optimizations.saveTrials([trial(theirs, 0), trial(theirs, 1)]);
        const options = { sort: 'index' as const, offset: 0, limit: 10 };
        expect(await store.optimizations.listTrials(otherUserId, theirs, options)).toHaveLength(2);
        expect(await store.optimizations.listTrials(userId, theirs, options)).toEqual([]);
        expect(await store.optimizations.listTrials(userId, uid('opt'), options)).toEqual([]);
        expect(await store.optimizations.listTrials(userId, await newOptimization(), options)).toEqual([]);
      });
    });

    describe('listAllTrials', () => {
      it("answers every stored trial of the optimization with its returns, by index, and no other optimization's", async () => {
        const { store, otherUserId } = context();
        const id = await newOptimization(otherUserId);
        const other = await newOptimization();
        const trials = range(0, 600).map((i) => (i % 7 ? trial(id, 599 - i, { fold: i % 3 }) : failedTrial(id, 599 - i, { fold: i % 3 })));
        // In several calls, as a worker saves them.
        for (let i = 0; i < trials.length; i += 250) await store.optimizations.saveTrials(trials.slice(i, i + 250));
        await store.optimizations.saveTrials([trial(other, 0), trial(other, 1000)]);
        const all = await store.optimizations.listAllTrials(id);
        expect(all.map(comparableTrial)).toEqual([...trials].sort((a, b) => a.index - b.index).map(comparableTrial));
        expect(await store.optimizations.listAllTrials(uid('opt'))).toEqual([]);
      });
    });
  });
}
