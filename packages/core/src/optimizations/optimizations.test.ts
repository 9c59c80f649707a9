import { afterEach, describe, expect, it } from 'vitest';
import type { OptimizationProgressEvent } from '@stratbox/contract';
import { createStratbox, type Stratbox, type StratboxConfig } from '../create-stratbox.js';
import { importCandlesCsv } from '../market-data/csv-import.js';
import { createSandboxPool } from '../backtests/engine/backtest-pool.js';
import { createSandboxStrategyRunner } from '../backtests/sandbox-strategy-runner.js';
import type { JobQueue } from '../ports/job-queue.js';
import { createJsonLogger, createSilentLogger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { StrategyRunner } from '../ports/strategy-runner.js';
import { createInProcessJobQueue } from '../queue/in-process-job-queue.js';
import { OPTIMIZATION_SLICE_JOB } from './optimization-slice-job.js';
import { validationWindows } from '../research/walk-forward.js';
import { createMemoryStore } from '../testing/memory-store.js';

const HOUR = 3_600_000;
const START = Date.parse('2025-01-01T00:00:00.000Z');
/** Ten days of 1h candles: 2025-01-01 to 2025-01-10. */
const CANDLES = 240;
const RANGE = { startDate: '2025-01-01', endDate: '2025-01-10' };
const SYMBOL = 'BTC/USDT:USDT';
const FINAL = ['completed', 'failed', 'cancelled'];

const services: Stratbox[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close().catch(() => undefined)));
});

/** Imports 1h candles whose close is `close(k)` for candle k (open: the previous close). */
async function importCandles(store: Store, close: (k: number) => number) {
  const rows = Array.from({ length: CANDLES }, (_, k) => {
    const c = close(k);
    const o = k === 0 ? c : close(k - 1);
    return `${START + k * HOUR},${o},${Math.max(o, c)},${Math.min(o, c)},${c},1`;
  });
  await importCandlesCsv({ store, symbol: SYMBOL, timeframe: '1h', csv: `time,open,high,low,close,volume\n${rows.join('\n')}\n` });
}

async function service(close: (k: number) => number, config: Partial<StratboxConfig> = {}, store: Store = createMemoryStore()) {
  await importCandles(store, close);
  const stratbox = createStratbox({ store, logger: createSilentLogger(), sandbox: { size: 1, cpuTimeMs: 5_000 }, ...config });
  services.push(stratbox);
  await stratbox.start();
  return stratbox;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const settled = (stratbox: Stratbox, userId: string, id: string) =>
  until(
    () => stratbox.optimizations.get(userId, id),
    (o) => FINAL.includes(o.status),
    `optimization ${id} to finish`,
  );

/** Holds a long position from candle `entry` until candle `exit` (market orders fill at the next open). */
const ENTRY_EXIT = `export const meta = { timeframe: '1h', params: {
  entry: { type: 'int', default: 0, min: 0, max: 239 },
  exit: { type: 'int', default: 239, min: 0, max: 239 },
} };
let k = -1;
export function onCandle(ctx, c) {
  k++;
  if (k === ctx.params.entry) ctx.buy(c.symbol, { size: 1 });
  if (k === ctx.params.exit && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;

/** Up from 100 to 220 at candle 120, then down again. */
const PEAK = (k: number) => (k <= 120 ? 100 + k : 340 - k);

/** No fees, no funding: the returns are the prices' alone. */
const ZERO_FEES = { fees: { maker: 0, taker: 0 }, funding: false };

describe('optimizations: search', () => {
  it('a grid search finds the computable optimum, and its best is backtested in full', { timeout: 180_000 }, async () => {
    const stratbox = await service(PEAK);
    const { userId } = await stratbox.users.createUser('trader');
    const s = await stratbox.strategies.create(userId, { name: 'entry-exit', description: '', source: ENTRY_EXIT, marketType: 'LINEAR' });
    const events: OptimizationProgressEvent[] = [];
    const created = await stratbox.optimizations.create(userId, {
      strategyId: s.id,
      symbols: [SYMBOL],
      ...RANGE,
      ...ZERO_FEES,
      searchSpace: { entry: { values: [0, 40, 80] }, exit: { min: 100, max: 160, step: 20 } },
      objective: 'totalReturn',
    });
    expect(created).toMatchObject({ status: 'queued', trialsTotal: 12, trialsDone: 0 });
    await stratbox.events.subscribe(`optimization:${created.id}:progress`, (data) => events.push(data as OptimizationProgressEvent));
    const done = await settled(stratbox, userId, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.trialsDone).toBe(12);
    // Bought at candle 1's open (100), sold at candle 121's open (220): +120%. Nothing else comes close.
    expect(done.best?.params).toEqual({ entry: '0', exit: '120' });
    expect(done.best?.objective).toBeCloseTo(1.2, 9);
    expect(events.at(-1)).toMatchObject({ status: 'completed', trialsDone: 12, trialsTotal: 12, best: { params: { entry: '0', exit: '120' } } });

    const { trials } = await stratbox.optimizations.trials(userId, created.id, { limit: 200 });
    expect(trials).toHaveLength(12);
    expect(new Set(trials.map((t) => t.index)).size).toBe(12);
    expect(trials[0]).toMatchObject({ params: { entry: '0', exit: '120' }, feasible: true });
    const objectives = trials.map((t) => t.objective!);
    expect(objectives).toEqual([...objectives].sort((a, b) => b - a));
    // sell at the open of candle exit + 1, buy at the open of candle entry + 1
    for (const t of trials) expect(t.objective).toBeCloseTo(PEAK(Number(t.params.exit)) / PEAK(Number(t.params.entry)) - 1, 9);

    const heat = done.results?.sensitivity.pairs[0];
    expect(heat).toMatchObject({ params: ['entry', 'exit'], x: ['0', '40', '80'], y: ['100', '120', '140', '160'] });
    expect(heat?.best[0]?.[1]).toBeCloseTo(1.2, 9);

    // The best parameters' full backtest runs through the ordinary queue and answers what the trial did.
    const backtest = await until(
      () => stratbox.backtests.get(userId, done.best!.backtestId!),
      (b) => FINAL.includes(b.status),
      'the best backtest',
    );
    expect(backtest).toMatchObject({ status: 'completed', params: { entry: '0', exit: '120' } });
    expect(backtest.metrics?.totalReturn).toBeCloseTo(done.best!.objective, 12);
  });

  it('random search with a seed draws the same trials every time, another seed others', { timeout: 180_000 }, async () => {
    const stratbox = await service(PEAK);
    const { userId } = await stratbox.users.createUser('trader');
    const s = await stratbox.strategies.create(userId, { name: 'entry-exit', description: '', source: ENTRY_EXIT, marketType: 'LINEAR' });
    const body = (seed: number) => ({
      strategyId: s.id,
      symbols: [SYMBOL],
      ...RANGE,
      searchSpace: { entry: { min: 0, max: 100, step: 10 }, exit: { min: 110, max: 230, step: 10 } },
      method: { kind: 'random' as const, count: 6, seed },
    });
    const runs = [];
    for (const seed of [7, 7, 8]) {
      const created = await stratbox.optimizations.create(userId, body(seed));
      const done = await settled(stratbox, userId, created.id);
      expect(done.status).toBe('completed');
      const { trials } = await stratbox.optimizations.trials(userId, created.id, { sort: 'index', limit: 200 });
      runs.push(trials.map((t) => ({ params: t.params, objective: t.objective })));
    }
    expect(runs[0]).toHaveLength(6);
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]!.map((t) => t.params)).not.toEqual(runs[0]!.map((t) => t.params));
  });
});

describe('optimizations: walk-forward', () => {
  it('searches each fold in sample without an out-of-sample candle, tests the winner out of sample, stitches the curve', { timeout: 180_000 }, async () => {
    // Close rises by 1 a candle: a trial's buy-and-hold return names the last candle it saw.
    const close = (k: number) => 100 + k;
    const stratbox = await service(close);
    const { userId } = await stratbox.users.createUser('trader');
    const s = await stratbox.strategies.create(userId, { name: 'entry-exit', description: '', source: ENTRY_EXIT, marketType: 'LINEAR' });
    const validation = { kind: 'walk-forward' as const, folds: 3, mode: 'rolling' as const, inSampleFraction: 0.5 };
    const created = await stratbox.optimizations.create(userId, {
      strategyId: s.id,
      symbols: [SYMBOL],
      ...RANGE,
      ...ZERO_FEES,
      searchSpace: { entry: { values: [0, 5] }, exit: { values: [20, 30] } },
      objective: 'totalReturn',
      validation,
    });
    expect(created.trialsTotal).toBe(12);
    const done = await settled(stratbox, userId, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');

    const folds = validationWindows({ start: START, end: START + CANDLES * HOUR }, validation, HOUR);
    const candleOf = (time: number) => (time - START) / HOUR;
    const { trials } = await stratbox.optimizations.trials(userId, created.id, { sort: 'index', limit: 200 });
    expect(trials).toHaveLength(12);
    for (const t of trials) {
      const fold = folds[t.fold!]!;
      // first traded candle: the window's first; last seen: the one before the out-of-sample window starts
      const first = candleOf(fold.inSample.start);
      const last = candleOf(fold.outOfSample.start) - 1;
      expect(t.metrics?.buyAndHoldReturn).toBeCloseTo(close(last) / close(first) - 1, 12);
    }
    const results = done.results!;
    expect(results.folds).toHaveLength(3);
    for (const [f, fold] of results.folds.entries()) {
      expect(fold.inSample.start).toBe(new Date(folds[f]!.inSample.start).toISOString());
      expect(fold.outOfSample.end).toBe(new Date(folds[f]!.outOfSample.end).toISOString());
      expect(fold.params).toEqual({ entry: '0', exit: '30' });
      const oosFirst = candleOf(folds[f]!.outOfSample.start);
      const oosLast = candleOf(folds[f]!.outOfSample.end) - 1;
      expect(fold.outOfSample.metrics?.buyAndHoldReturn).toBeCloseTo(close(oosLast) / close(oosFirst) - 1, 12);
      expect(fold.efficiency).toBeTypeOf('number');
    }
    expect(results.walkForwardEfficiency).toBeTypeOf('number');
    expect(results.outOfSampleEquity?.[0]?.time).toBeDefined();
    expect(Date.parse(results.outOfSampleEquity!.at(-1)!.time)).toBe(folds[2]!.outOfSample.end);
    expect(done.best?.params).toEqual({ entry: '0', exit: '30' });
  });
});

describe('optimizations: control', () => {
  it('refuses a search space the strategy does not accept, with field details', async () => {
    const stratbox = await service(PEAK);
    const { userId } = await stratbox.users.createUser('trader');
    const s = await stratbox.strategies.create(userId, { name: 'entry-exit', description: '', source: ENTRY_EXIT, marketType: 'LINEAR' });
    const base = { strategyId: s.id, symbols: [SYMBOL], ...RANGE };
    await expect(stratbox.optimizations.create(userId, { ...base, searchSpace: { entry: { values: [0, 500] }, nope: { values: [1] } } })).rejects.toMatchObject(
      {
        code: 'VALIDATION_FAILED',
        details: expect.arrayContaining([
          expect.objectContaining({ path: 'body.searchSpace.entry.values.1' }),
          expect.objectContaining({ path: 'body.searchSpace.nope' }),
        ]),
      },
    );
    await expect(stratbox.optimizations.create(userId, { ...base, params: { entry: '3' }, searchSpace: { entry: { values: [0, 1] } } })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ path: 'body.params.entry' })],
    });
    await expect(
      stratbox.optimizations.create(userId, { ...base, searchSpace: { entry: { values: [0] } }, validation: { kind: 'walk-forward', folds: 200 } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    // Another user's strategy is not found; their optimization is not found either.
    const other = await stratbox.users.createUser('other');
    await expect(stratbox.optimizations.create(other.userId, { ...base, searchSpace: { entry: { values: [0] } } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it("refuses more trials than the plan allows (402) and counts each trial's CPU as compute", { timeout: 180_000 }, async () => {
    const stratbox = await service(PEAK, { billing: { plans: { free: { limits: { trialsPerOptimization: 5 } } } } });
    const { userId } = await stratbox.users.createUser('trader');
    const s = await stratbox.strategies.create(userId, { name: 'entry-exit', description: '', source: ENTRY_EXIT, marketType: 'LINEAR' });
    const base = { strategyId: s.id, symbols: [SYMBOL], ...RANGE };
    await expect(stratbox.optimizations.create(userId, { ...base, searchSpace: { entry: { values: [0, 1, 2, 3, 4, 5] } } })).rejects.toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      details: { counter: 'trials', used: 6, limit: 5 },
    });
    const created = await stratbox.optimizations.create(userId, { ...base, searchSpace: { entry: { values: [0, 1, 2, 3, 4] } } });
    const done = await settled(stratbox, userId, created.id);
    const { trials } = await stratbox.optimizations.trials(userId, created.id, { limit: 200 });
    const metered = trials.reduce((sum, t) => sum + t.computeMs, 0);
    expect(metered).toBeGreaterThan(0);
    expect(done.computeMs).toBe(metered);
    const { period } = await stratbox.billing.usage.context(userId);
    expect((await stratbox.store.usageCounters.find(userId, period.start))?.computeMs).toBe(metered);
  });

  it('cancels within a second, keeps the trials done, and a stopped service resumes without redoing or recounting them', { timeout: 240_000 }, async () => {
    const shared = createMemoryStore();
    // A stop closes the service's store: this one stays open for the next service, as a database would.
    const store: Store = { ...shared, close: async () => undefined };
    // Each trial burns a little CPU per candle, so the search takes several seconds.
    const slow = ENTRY_EXIT.replace('k++;', 'k++; let x = 0; for (let i = 0; i < 20000; i++) x += i;');
    const first = await service(PEAK, {}, store);
    const { userId } = await first.users.createUser('trader');
    const s = await first.strategies.create(userId, { name: 'slow', description: '', source: slow, marketType: 'LINEAR' });
    const body = { strategyId: s.id, symbols: [SYMBOL], ...RANGE, searchSpace: { entry: { min: 0, max: 29, step: 1 } } };

    const cancelled = await first.optimizations.create(userId, body);
    await until(
      () => first.optimizations.get(userId, cancelled.id),
      (o) => o.trialsDone > 0,
      'a first trial',
    );
    await first.optimizations.cancel(userId, cancelled.id);
    const stoppedAt = Date.now();
    // No trial is stored a second after the cancel.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const afterCancel = await first.optimizations.get(userId, cancelled.id);
    const later = await until(
      () => first.optimizations.get(userId, cancelled.id),
      () => Date.now() - stoppedAt > 2_500,
      'time to pass',
    );
    expect(afterCancel.status).toBe('cancelled');
    expect(later.trialsDone).toBe(afterCancel.trialsDone);
    expect(later.trialsDone).toBeLessThan(30);

    const resumed = await first.optimizations.create(userId, body);
    const partial = await until(
      () => first.optimizations.get(userId, resumed.id),
      (o) => o.trialsDone >= 3,
      'some trials',
    );
    expect(partial.status).toBe('running');
    await first.close(); // a stop: the optimization stays running for the next start
    services.splice(services.indexOf(first), 1);
    const kept = (await store.optimizations.listAllTrials(resumed.id)).length;
    expect(kept).toBeGreaterThanOrEqual(3);

    const second = createStratbox({ store, logger: createSilentLogger(), sandbox: { size: 1, cpuTimeMs: 5_000 } });
    services.push(second);
    await second.start();
    const done = await settled(second, userId, resumed.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.trialsDone).toBe(30);
    const { trials } = await second.optimizations.trials(userId, resumed.id, { sort: 'index', limit: 200 });
    expect(trials.map((t) => t.index)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(done.computeMs).toBeGreaterThanOrEqual(trials.reduce((sum, t) => sum + t.computeMs, 0));
  });
});

describe('optimizations: slices', () => {
  it('a slice delivered again after its trials were stored runs and counts nothing; a stalled twin beside it counts each trial once', {
    timeout: 180_000,
  }, async () => {
    const store = createMemoryStore();
    // Every trial the runner runs, and every slice commit the worker logs.
    let trialsRun = 0;
    const sandbox = createSandboxStrategyRunner(createSandboxPool({ size: 1, cpuTimeMs: 5_000 }));
    const strategyRunner: StrategyRunner = {
      ...sandbox,
      runTrials: (input, trials, options) => {
        trialsRun += trials.length;
        return sandbox.runTrials(input, trials, options);
      },
    };
    const commits: Array<Record<string, unknown>> = [];
    const logger = createJsonLogger({ level: 'debug', write: (line) => commits.push(JSON.parse(line) as Record<string, unknown>) });
    // The first slice job is delivered twice at once (a stalled twin), then once more after both ended.
    const inner = createInProcessJobQueue();
    const redelivery: { firstJobId?: string; statusBefore?: string } = {};
    const queue: JobQueue = {
      ...inner,
      process(name, handler, options) {
        if (name !== OPTIMIZATION_SLICE_JOB) return inner.process(name, handler, options);
        inner.process(
          name,
          async (job, signal) => {
            if (redelivery.firstJobId !== undefined) return handler(job, signal);
            redelivery.firstJobId = job.id;
            await Promise.all([handler(job, signal), handler({ ...job, redelivered: true }, signal)]);
            redelivery.statusBefore = (await store.optimizations.findById(String(job.payload.userId), String(job.payload.optimizationId)))?.status;
            await handler({ ...job, redelivered: true }, signal);
          },
          options,
        );
      },
    };
    const stratbox = await service(PEAK, { strategyRunner, queue, logger }, store);
    const { userId } = await stratbox.users.createUser('trader');
    const s = await stratbox.strategies.create(userId, { name: 'entry-exit', description: '', source: ENTRY_EXIT, marketType: 'LINEAR' });
    const created = await stratbox.optimizations.create(userId, {
      strategyId: s.id,
      symbols: [SYMBOL],
      ...RANGE,
      searchSpace: { entry: { values: [0, 20, 40, 60] }, exit: { min: 100, max: 200, step: 20 } },
    });
    expect(created.trialsTotal).toBe(24);
    const done = await settled(stratbox, userId, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.trialsDone).toBe(24);

    // The first slice (trials 0 to 3) ran twice at once; its third delivery found them stored while the optimization ran.
    expect(redelivery.firstJobId).toBe(`${created.id}_slice_all_0`);
    expect(redelivery.statusBefore).toBe('running');
    const firstSlice = commits.filter((c) => c.msg === 'Optimization slice stored' && c.optimizationId === created.id && c.first === 0);
    expect(firstSlice.map((c) => [c.trials, c.stored]).sort()).toEqual([
      [4, 0],
      [4, 4],
    ]);
    expect(trialsRun).toBe(24 + 4);

    // Each trial stored, counted and metered once: the optimization's compute is its trials' CPU.
    const { trials } = await stratbox.optimizations.trials(userId, created.id, { sort: 'index', limit: 200 });
    expect(trials.map((t) => t.index)).toEqual(Array.from({ length: 24 }, (_, i) => i));
    const metered = trials.reduce((sum, t) => sum + t.computeMs, 0);
    expect(done.computeMs).toBe(metered);
  });
});
