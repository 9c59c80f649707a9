import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient, StratboxClientError } from '@stratbox/client';
import type { OptimizationProgressData, OptimizationTrial } from '@stratbox/core/contract';
import { expectError } from './harness/client-errors.js';
import { deferred, sleep, waitFor } from './harness/deferred.js';
import { startTestService } from './harness/in-process.js';
import { allTrials, FINISHED, smaCrossStrategy, waitOptimizationFinished, waitTrialsStored } from './harness/optimizations.js';
import { waitFinished } from './harness/wait-backtest.js';
import { startWsTestService, type WsTestService } from './harness/ws-service.js';

/** Three months of 1h synthetic candles: about 2,200 a trial. */
const RANGE = { symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-03-31' };
/** 12 points: 4 fast periods x 3 slow periods. */
const GRID = { fast: { values: [5, 10, 15, 20] }, slow: { values: [30, 50, 80] } };
/** 1,000 points (the free plan's most): 40 fast periods x 25 slow periods. */
const BIG_GRID = { fast: { min: 2, max: 41, step: 1 }, slow: { min: 50, max: 74, step: 1 } };

const indexesOf = (trials: OptimizationTrial[]) => trials.map((t) => t.index).sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('optimizations over HTTP and WebSocket', () => {
  let service: WsTestService;
  let a: StratboxClient;
  let b: StratboxClient;
  let sma: string;
  let slowSma: string;
  let heavySma: string;

  beforeAll(async () => {
    service = await startWsTestService();
    a = (await service.newUser('alice')).client;
    b = (await service.newUser('bob')).client;
    sma = (await a.strategies.create({ body: { name: 'sma cross', source: smaCrossStrategy() } })).id;
    // About 2,000 additions a candle more: a trial takes tens of milliseconds, 1,000 of them many seconds.
    slowSma = (await a.strategies.create({ body: { name: 'slow sma cross', source: smaCrossStrategy(2_000) } })).id;
    // 15 times more: a trial takes a couple of seconds, longer than a slice aims at, so a slice is one trial.
    heavySma = (await a.strategies.create({ body: { name: 'heavy sma cross', source: smaCrossStrategy(30_000) } })).id;
  });
  afterAll(async () => {
    a?.realtime.close();
    b?.realtime.close();
    await service?.close();
  });

  it('a walk-forward search runs to completion, reports its progress live, and answers folds, sensitivity, overfitting and trials', {
    timeout: 420_000,
  }, async () => {
    // Slow trials (a few seconds in all): the watcher, subscribed just after the create, sees the search move.
    const created = await a.optimizations.create({
      body: { strategyId: slowSma, ...RANGE, searchSpace: GRID, validation: { kind: 'walk-forward', folds: 3, mode: 'rolling' } },
    });
    expect(created).toMatchObject({ status: 'queued', trialsTotal: 36, trialsDone: 0, best: null });

    const events: OptimizationProgressData[] = [];
    const stop = a.optimizations.watch(created.id, (event) => events.push(event));
    const final = await waitFor('the final progress event', () => events.find((e) => FINISHED.includes(e.status)), 240_000);
    stop();

    // Live progress: trialsDone only rises, up to trialsTotal; the last event is the completion with the best.
    expect(final).toMatchObject({ optimizationId: created.id, status: 'completed', progress: 1, trialsDone: 36, trialsTotal: 36 });
    expect(final.best).not.toBeNull();
    for (let i = 1; i < events.length; i++) expect(events[i]!.trialsDone).toBeGreaterThanOrEqual(events[i - 1]!.trialsDone);
    expect(events.every((e) => e.trialsTotal === 36)).toBe(true);
    expect(events.at(-1)).toBe(final);
    expect(events.some((e) => e.status === 'running' && e.trialsDone > 0 && e.trialsDone < 36)).toBe(true);

    const done = await a.optimizations.get({ params: { id: created.id } });
    expect(done).toMatchObject({ status: 'completed', progress: 1, trialsDone: 36, trialsTotal: 36, error: null });
    expect(done.computeMs).toBeGreaterThan(0);
    expect(done.best).toMatchObject({ index: final.best!.index, params: final.best!.params, objective: final.best!.objective, fold: 2 });
    const results = done.results!;
    expect(results).not.toBeNull();

    // Three folds, each tested out of sample on the block right after its in-sample window.
    expect(results.folds.map((f) => f.index)).toEqual([0, 1, 2]);
    for (const fold of results.folds) {
      expect(Date.parse(fold.inSample.start)).toBeLessThan(Date.parse(fold.inSample.end));
      expect(fold.outOfSample.start).toBe(fold.inSample.end);
      expect(fold.inSample.metrics?.sharpe).toBeTypeOf('number');
      expect(fold.outOfSample.metrics?.totalReturn).toBeTypeOf('number');
      expect(Object.keys(fold.params ?? {}).sort()).toEqual(['fast', 'slow']);
      // Pardo's efficiency: null exactly when the in-sample return is not positive
      if ((fold.inSample.metrics?.totalReturn ?? 0) > 0) expect(fold.efficiency).toBeTypeOf('number');
      else expect(fold.efficiency).toBeNull();
    }
    expect(results.folds[2]!.outOfSample.end).toBe('2024-04-01T00:00:00.000Z');
    expect(results.folds[2]!.params).toEqual(done.best!.params);
    const efficiencies = results.folds.map((f) => f.efficiency).filter((e): e is number => e !== null);
    if (efficiencies.length === 0) expect(results.walkForwardEfficiency).toBeNull();
    else expect(results.walkForwardEfficiency).toBeCloseTo(efficiencies.reduce((s, e) => s + e, 0) / efficiencies.length, 9);
    expect(results.outOfSampleEquity?.length).toBeGreaterThan(0);
    expect(results.outOfSampleEquity!.at(-1)!.time).toBe('2024-04-01T00:00:00.000Z');

    // Sensitivity over the last fold's 12 trials: one row per parameter, one 4 x 3 heatmap.
    expect(results.sensitivity.params.map((p) => [p.param, p.values.map((v) => v.value)])).toEqual([
      ['fast', ['5', '10', '15', '20']],
      ['slow', ['30', '50', '80']],
    ]);
    expect(results.sensitivity.pairs).toHaveLength(1);
    const heat = results.sensitivity.pairs[0]!;
    expect(heat).toMatchObject({ params: ['fast', 'slow'], x: ['5', '10', '15', '20'], y: ['30', '50', '80'] });
    expect(heat.best.map((row) => row.length)).toEqual([3, 3, 3, 3]);
    const bestCell = heat.best[heat.x.indexOf(done.best!.params.fast!)]![heat.y.indexOf(done.best!.params.slow!)];
    expect(bestCell).toBe(done.best!.objective);
    expect(Math.max(...heat.best.flat().filter((v): v is number => v !== null))).toBe(done.best!.objective);

    // Overfitting statistics: numbers in [0, 1], or null when not computable (docs/optimizations.md).
    const { deflatedSharpe, pbo } = results.overfitting;
    if (deflatedSharpe) {
      expect(deflatedSharpe.value).toBeGreaterThanOrEqual(0);
      expect(deflatedSharpe.value).toBeLessThanOrEqual(1);
      expect(deflatedSharpe.trials).toBeLessThanOrEqual(12);
    } else expect(deflatedSharpe).toBeNull();
    if (pbo) {
      expect(pbo.pbo).toBeGreaterThanOrEqual(0);
      expect(pbo.pbo).toBeLessThanOrEqual(1);
      expect(pbo.trials).toBe(12);
    } else expect(pbo).toBeNull();

    // The best parameters' full backtest runs like any other.
    const backtest = await waitFinished(a, done.best!.backtestId!, 120_000);
    expect(backtest.status, JSON.stringify(backtest.error)).toBe('completed');
    expect(backtest.params).toEqual(done.best!.params);
    expect(backtest.metrics?.tradeCount).toBeTypeOf('number');

    // Trials page through: every index exactly once, in either order.
    const byIndex = await allTrials(a, created.id, { sort: 'index', limit: 5 });
    expect(byIndex.pages).toBe(8);
    expect(byIndex.trials.map((t) => t.index)).toEqual(range(0, 36));
    expect(byIndex.trials.map((t) => t.fold)).toEqual(range(0, 36).map((i) => Math.floor(i / 12)));
    expect(byIndex.trials.every((t) => t.status === 'completed' && t.computeMs >= 0)).toBe(true);
    const byObjective = await allTrials(a, created.id, { sort: 'objective', limit: 7 });
    expect(indexesOf(byObjective.trials)).toEqual(range(0, 36));
    const feasibleFlags = byObjective.trials.map((t) => t.feasible);
    expect(feasibleFlags).toEqual([...feasibleFlags].sort((x, y) => Number(y) - Number(x))); // feasible first
    const objectives = byObjective.trials.filter((t) => t.feasible).map((t) => t.objective!);
    expect(objectives).toEqual([...objectives].sort((x, y) => y - x));
    const fold1 = await allTrials(a, created.id, { sort: 'objective', fold: 1, limit: 200 });
    expect(fold1.pages).toBe(1);
    expect(indexesOf(fold1.trials)).toEqual(range(12, 24));
    expect(fold1.trials.every((t) => t.fold === 1)).toBe(true);
    // the in-sample winner of fold 1 is its best trial
    expect(fold1.trials[0]!.params).toEqual(results.folds[1]!.params);

    // The list filters by status.
    const completed = await a.optimizations.list({ query: { status: 'completed' } });
    expect(completed.optimizations.map((o) => o.id)).toContain(created.id);
    expect(completed.optimizations.every((o) => o.status === 'completed')).toBe(true);
    expect((await a.optimizations.list({ query: { status: 'cancelled' } })).optimizations).toEqual([]);
  });

  it('a large optimization cancelled over HTTP is cancelled at once and stores no trial after a second; a second cancel is a 409', {
    timeout: 420_000,
  }, async () => {
    // Trials longer than a second: when it is cancelled, slices are under way that would store trials more than a second later.
    const created = await a.optimizations.create({ body: { strategyId: heavySma, ...RANGE, searchSpace: BIG_GRID } });
    expect(created.trialsTotal).toBe(1_000);
    const events: OptimizationProgressData[] = [];
    a.optimizations.watch(created.id, (event) => events.push(event));
    const running = await waitTrialsStored(a, created.id, 240_000);
    expect(running.status).toBe('running'); // large enough to be cancelled while it runs
    const listedRunning = await a.optimizations.list({ query: { status: 'running' } });
    expect(listedRunning.optimizations.map((o) => o.id)).toEqual([created.id]);

    const cancelled = await a.optimizations.cancel({ params: { id: created.id } });
    const cancelledAt = performance.now();
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.finishedAt).not.toBeNull();
    expect((await a.optimizations.get({ params: { id: created.id } })).status).toBe('cancelled');
    // watchers hear of it at once
    const ended = await waitFor('the final progress event', () => events.find((e) => FINISHED.includes(e.status)), 10_000);
    expect(ended.status).toBe('cancelled');

    // Watch trialsDone for four seconds: a slice that was being stored may still land, but nothing after a second.
    const seen: Array<{ at: number; trialsDone: number }> = [];
    while (performance.now() - cancelledAt < 4_000) {
      const o = await a.optimizations.get({ params: { id: created.id } });
      expect(o.status).toBe('cancelled');
      seen.push({ at: performance.now() - cancelledAt, trialsDone: o.trialsDone });
      await sleep(100);
    }
    const settled = seen.at(-1)!.trialsDone;
    const afterASecond = seen.filter((s) => s.at >= 1_000);
    expect(afterASecond.length).toBeGreaterThan(10);
    expect(afterASecond.map((s) => s.trialsDone)).toEqual(afterASecond.map(() => settled));
    expect(settled).toBeLessThan(1_000);

    // The trials done are kept and listed, each once.
    const kept = await allTrials(a, created.id, { sort: 'index', limit: 200 });
    expect(kept.trials).toHaveLength(settled);
    expect(new Set(kept.trials.map((t) => t.index)).size).toBe(settled);

    await expectError(a.optimizations.cancel({ params: { id: created.id } }), 409, 'CONFLICT');
    const listed = await a.optimizations.list({ query: { status: 'cancelled' } });
    expect(listed.optimizations.map((o) => o.id)).toEqual([created.id]);
  });

  it('another user gets 404 on an optimization and its channel; bad searches answer 400 with details', { timeout: 300_000 }, async () => {
    const created = await a.optimizations.create({ body: { strategyId: sma, ...RANGE, searchSpace: { fast: { values: [5, 10] } } } });
    const id = created.id;
    await expectError(b.optimizations.get({ params: { id } }), 404, 'NOT_FOUND');
    await expectError(b.optimizations.trials({ params: { id } }), 404, 'NOT_FOUND');
    await expectError(b.optimizations.cancel({ params: { id } }), 404, 'NOT_FOUND');
    expect((await b.optimizations.list({})).optimizations).toEqual([]);
    const refused = deferred<StratboxClientError>();
    const bEvents: unknown[] = [];
    b.optimizations.watch(id, (event) => bEvents.push(event), { onError: (error) => refused.resolve(error) });
    expect(await refused.promise).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    // nor may B search with A's strategy
    await expectError(b.optimizations.create({ body: { strategyId: sma, ...RANGE, searchSpace: GRID } }), 404, 'NOT_FOUND');
    // A's own optimization was not disturbed
    const done = await waitOptimizationFinished(a, id);
    expect(done.status).toBe('completed');
    expect(bEvents).toEqual([]);

    const countMine = async () => (await a.optimizations.list({ query: { limit: 200 } })).optimizations.length;
    const before = await countMine();
    // Values meta.params refuses (fast: int from 2 to 50), an unknown parameter, a parameter both fixed and searched.
    const refusedSpace = await expectError(
      a.optimizations.create({ body: { strategyId: sma, ...RANGE, searchSpace: { fast: { values: [1, 10, 2.5] }, speed: { values: [1] } } } }),
      400,
      'VALIDATION_FAILED',
    );
    const paths = (refusedSpace.details as Array<{ path: string }>).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['body.searchSpace.fast.values.0', 'body.searchSpace.fast.values.2', 'body.searchSpace.speed']));
    expect(paths.every((p) => p.startsWith('body.searchSpace.'))).toBe(true);
    const overRange = await expectError(
      a.optimizations.create({ body: { strategyId: sma, ...RANGE, searchSpace: { slow: { min: 50, max: 120, step: 10 } } } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(JSON.stringify(overRange.details)).toContain('body.searchSpace.slow');
    const both = await expectError(
      a.optimizations.create({ body: { strategyId: sma, ...RANGE, params: { fast: '5' }, searchSpace: GRID } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(JSON.stringify(both.details)).toContain('body.params.fast');
    // An unknown body field is named.
    const withTypo = { strategyId: sma, ...RANGE, searchSpace: GRID, searchSpaces: GRID };
    const typo = await expectError(a.optimizations.create({ body: withTypo }), 400, 'VALIDATION_FAILED');
    expect(typo.message).toContain('searchSpaces');
    // None of them was created.
    expect(await countMine()).toBe(before);
  });
});

describe('an optimization above the plan', () => {
  it("answers 402 with counter 'trials', counting every fold's trials", { timeout: 300_000 }, async () => {
    const service = await startTestService({ billing: { plans: { free: { limits: { trialsPerOptimization: 10 } } } } });
    try {
      const { client } = await service.newUser('capped');
      const strategyId = (await client.strategies.create({ body: { name: 'sma', source: smaCrossStrategy() } })).id;
      const tooMany = await expectError(client.optimizations.create({ body: { strategyId, ...RANGE, searchSpace: GRID } }), 402, 'PLAN_LIMIT_EXCEEDED');
      expect(tooMany.details).toMatchObject({ counter: 'trials', used: 12, limit: 10 });
      // 4 combinations fit; over 3 folds they are 12 trials.
      const four = { fast: { values: [5, 10] }, slow: { values: [30, 50] } };
      const folds = await expectError(
        client.optimizations.create({ body: { strategyId, ...RANGE, searchSpace: four, validation: { kind: 'walk-forward', folds: 3 } } }),
        402,
        'PLAN_LIMIT_EXCEEDED',
      );
      expect(folds.details).toMatchObject({ counter: 'trials', used: 12, limit: 10 });
      expect((await client.optimizations.list({})).optimizations).toEqual([]);
      const fits = await client.optimizations.create({ body: { strategyId, ...RANGE, searchSpace: four } });
      expect(fits).toMatchObject({ status: 'queued', trialsTotal: 4 });
      expect((await waitOptimizationFinished(client, fits.id)).status).toBe('completed');
    } finally {
      await service.close();
    }
  });
});

describe('fairness between an optimization and backtests', () => {
  it("another user's backtest submitted while a big optimization runs completes in about its normal time", { timeout: 420_000 }, async () => {
    // One sandbox child: the optimization and the backtest really compete for it.
    const service = await startTestService({ sandbox: { size: 1 } });
    try {
      const a = (await service.newUser('optimizer')).client;
      const b = (await service.newUser('backtester')).client;
      const slowSma = (await a.strategies.create({ body: { name: 'slow sma', source: smaCrossStrategy(2_000) } })).id;
      const plain = (await b.strategies.create({ body: { name: 'sma', source: smaCrossStrategy() } })).id;
      const timeBacktest = async () => {
        const startedAt = performance.now();
        const { id } = await b.backtests.create({ body: { strategyId: plain, ...RANGE, startDate: '2024-01-01', endDate: '2024-06-30' } });
        const done = await waitFinished(b, id, 240_000);
        expect(done.status, JSON.stringify(done.error)).toBe('completed');
        return performance.now() - startedAt;
      };

      const alone = await timeBacktest();
      const optimization = await a.optimizations.create({ body: { strategyId: slowSma, ...RANGE, searchSpace: BIG_GRID } });
      const started = await waitTrialsStored(a, optimization.id, 240_000);
      expect(started.status).toBe('running');
      const during = await timeBacktest();
      // The optimization was still at work the whole time: the backtest did not wait for it to end.
      const after = await a.optimizations.get({ params: { id: optimization.id } });
      expect(after.status).toBe('running');
      expect(after.trialsDone).toBeLessThan(after.trialsTotal);
      expect(during, `alone ${Math.round(alone)} ms, during the optimization ${Math.round(during)} ms`).toBeLessThanOrEqual(3 * alone + 5_000);
      await a.optimizations.cancel({ params: { id: optimization.id } });
    } finally {
      await service.close();
    }
  });
});
