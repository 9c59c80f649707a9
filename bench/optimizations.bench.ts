/**
 * Optimizations benchmark (issue 16), through the real service: trials per second of a grid of
 * 1,000 SMA(fast, slow) parameter sets over one year of 1h candles on one symbol, as one
 * optimization (`stratbox.optimizations.create`, timed from create to `completed`), beside the
 * same parameter sets submitted at once as plain backtests (`stratbox.backtests.create`, timed
 * until every one is completed), with one and with two sandbox children. Each side pays what a
 * user's request pays: the job queue, the SQLite store (a temp dir), metering; the candles are the
 * default synthetic market data. It checks that the best trial is the best of the backtests (the
 * same seed, so the same Sharpe to the last bit) and prints the trials' mean CPU time, the host
 * process's CPU per run and what runTrials alone reaches (bench/trials.bench.ts) for scale.
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx optimizations.bench.ts
 *   BACKTESTS=n runs only the first n of the backtests (default 1000); WORKERS=1,2 (default).
 *
 * Target (issue): at least 100 trials/s with 2 workers on this 2-core machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bestTrial, createSilentLogger, createStratbox, type Stratbox } from '@stratbox/core';
import type { BacktestDetail, OptimizationDetail, OptimizationTrial } from '@stratbox/core/contract';
import { createKyselyStore } from '@stratbox/store-kysely';
import { REFERENCE_STRATEGY } from './synthetic-candles.js';

const BACKTESTS = Math.min(1000, Number(process.env.BACKTESTS ?? 1000));
const WORKERS = (process.env.WORKERS ?? '1,2').split(',').map(Number);
const SYMBOL = 'BTC/USDT:USDT';
/** 2023: 8,760 candles of 1h. */
const RUN = {
  symbols: [SYMBOL],
  startDate: '2023-01-01',
  endDate: '2023-12-31',
  timeframe: '1h' as const,
  fees: { maker: 0.0002, taker: 0.0005 },
  funding: false,
};
/** fast 2..26 (25 values) x slow 30..225 by 5 (40 values): 1,000 points, slow varying fastest. */
const SEARCH = { fast: { min: 2, max: 26, step: 1 }, slow: { min: 30, max: 225, step: 5 } };
const POLL_MS = 20;
const FINISHED = ['completed', 'failed', 'cancelled'];

/** The reference SMA crossover, on 1h candles. */
const SOURCE = REFERENCE_STRATEGY.replace("timeframe: '1m'", "timeframe: '1h'");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const key = (params: Record<string, string>) => `${params.fast}/${params.slow}`;
const fmt = (x: number, digits = 1) => x.toFixed(digits);

/** The grid's points in the optimization's order (the last parameter varying fastest). */
function gridParams(): Record<string, string>[] {
  const sets: Record<string, string>[] = [];
  for (let fast = SEARCH.fast.min; fast <= SEARCH.fast.max; fast += SEARCH.fast.step)
    for (let slow = SEARCH.slow.min; slow <= SEARCH.slow.max; slow += SEARCH.slow.step) sets.push({ fast: String(fast), slow: String(slow) });
  return sets;
}

/** Host CPU ms (user + system) used by this process while `work` ran, and its wall time. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; hostCpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { value, seconds, hostCpuMs: (used.user + used.system) / 1000 };
}

async function openService(dir: string, workers: number): Promise<Stratbox> {
  const store = await createKyselyStore({ dialect: 'sqlite', filename: join(dir, `bench-${workers}.sqlite`) });
  const stratbox = createStratbox({
    store,
    logger: createSilentLogger(),
    sandbox: { size: workers, maxRunningPerTenant: workers },
    optimizations: { parallelSlices: workers },
    workerConcurrency: workers,
    perUserConcurrency: workers,
    billing: { plans: { free: { limits: { backtests: 1e9, computeSeconds: 1e9, trialsPerOptimization: 1e6 } } } },
  });
  await stratbox.start();
  return stratbox;
}

/** Runs an optimization of `searchSpace` and waits (polling every POLL_MS) until it finishes. */
async function optimize(stratbox: Stratbox, userId: string, strategyId: string, searchSpace: typeof SEARCH) {
  const created = await stratbox.optimizations.create(userId, { strategyId, ...RUN, searchSpace, objective: 'sharpe', validation: { kind: 'none' } });
  for (;;) {
    const o = await stratbox.optimizations.get(userId, created.id);
    if (FINISHED.includes(o.status)) {
      if (o.status !== 'completed') throw new Error(`optimization ${o.status}: ${JSON.stringify(o.error)}`);
      return o;
    }
    await sleep(POLL_MS);
  }
}

/** Waits until every backtest of `ids` is finished, polling the first unfinished one every POLL_MS (they run in about the order queued). */
async function waitBacktests(stratbox: Stratbox, userId: string, ids: string[]) {
  const done = [];
  for (const id of ids) {
    for (;;) {
      const b = await stratbox.backtests.get(userId, id);
      if (FINISHED.includes(b.status)) {
        if (b.status !== 'completed') throw new Error(`backtest ${id} ${b.status}: ${JSON.stringify(b.error)}`);
        done.push(b);
        break;
      }
      await sleep(POLL_MS);
    }
  }
  return done;
}

/** Every trial of an optimization, 200 a page. */
async function allTrials(stratbox: Stratbox, userId: string, id: string) {
  const trials = [];
  let cursor: string | undefined;
  do {
    const page = await stratbox.optimizations.trials(userId, id, { sort: 'index', limit: 200, ...(cursor ? { cursor } : {}) });
    trials.push(...page.trials);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return trials;
}

const describe = (params: Record<string, string>, sharpe: number | null | undefined) => `fast ${params.fast}, slow ${params.slow}, sharpe ${sharpe}`;

/**
 * The same runs, the same seeds: every backtest's Sharpe must be its trial's objective to the last
 * bit, and the best of the trials that also ran as backtests must be the backtest of largest Sharpe.
 */
function checkAgainstBacktests(trials: OptimizationTrial[], backtests: BacktestDetail[], best: OptimizationDetail['best']) {
  const trialByParams = new Map(trials.map((t) => [key(t.params), t]));
  const mismatches = backtests.filter((b) => (b.metrics?.sharpe ?? null) !== trialByParams.get(key(b.params))?.objective).length;
  const bestBacktest = backtests.reduce<BacktestDetail | null>(
    (best, b) => (typeof b.metrics?.sharpe === 'number' && (best === null || b.metrics.sharpe > best.metrics!.sharpe!) ? b : best),
    null,
  );
  // All ran as backtests: the optimization's own best; else the best of the trials that did.
  const bestTrialRun = backtests.length === trials.length ? best : bestTrial(backtests.map((b) => trialByParams.get(key(b.params))!));
  const bestMatches =
    bestBacktest !== null &&
    bestTrialRun !== null &&
    key(bestBacktest.params) === key(bestTrialRun.params) &&
    bestBacktest.metrics!.sharpe === bestTrialRun.objective;
  return { mismatches, bestMatches, bestBacktest: bestBacktest ? describe(bestBacktest.params, bestBacktest.metrics!.sharpe) : 'none' };
}

async function measure(dir: string, workers: number) {
  const stratbox = await openService(dir, workers);
  try {
    const { userId } = await stratbox.users.createUser('bench');
    const strategy = await stratbox.strategies.create(userId, { name: 'sma', description: '', source: SOURCE, marketType: 'LINEAR' });
    // Warm the children (the first jobs of a child also compile QuickJS's hot paths in V8) and the candle cache.
    const warm = await optimize(stratbox, userId, strategy.id, { fast: { min: 2, max: 5, step: 1 }, slow: { min: 30, max: 35, step: 5 } });
    await waitBacktests(stratbox, userId, [warm.best!.backtestId!]);

    const sweep = await timed(() => optimize(stratbox, userId, strategy.id, SEARCH));
    const optimization = sweep.value;
    // The best's full backtest is queued when the optimization completes: let it finish before the backtests are timed.
    await waitBacktests(stratbox, userId, [optimization.best!.backtestId!]);
    const trials = await allTrials(stratbox, userId, optimization.id);

    const sets = gridParams().slice(0, BACKTESTS);
    const plain = await timed(async () => {
      const created = await Promise.all(sets.map((params) => stratbox.backtests.create(userId, { strategyId: strategy.id, ...RUN, params })));
      return waitBacktests(
        stratbox,
        userId,
        created.map((b) => b.id),
      );
    });

    const check = checkAgainstBacktests(trials, plain.value, optimization.best);

    const cpu = trials.map((t) => t.computeMs);
    return {
      workers,
      trialsPerSecond: trials.length / sweep.seconds,
      backtestsPerSecond: sets.length / plain.seconds,
      optimizationSeconds: sweep.seconds,
      backtestSeconds: plain.seconds,
      trialCpuMeanMs: cpu.reduce((a, b) => a + b, 0) / cpu.length,
      childMsPerTrial: (sweep.seconds * 1000 * workers) / trials.length,
      hostCpuMsPerTrial: sweep.hostCpuMs / trials.length,
      hostCpuMsPerBacktest: plain.hostCpuMs / sets.length,
      trials: trials.length,
      best: describe(optimization.best!.params, optimization.best!.objective),
      ...check,
    };
  } finally {
    await stratbox.close();
  }
}

async function main() {
  console.log(
    `Stratbox optimizations bench: ${gridParams().length} trials of SMA(fast, slow) over ${RUN.startDate}..${RUN.endDate} of 1h candles on ${SYMBOL}, ` +
      `through createStratbox (SQLite, in-process queue), Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  if (BACKTESTS < 1000) console.log(`BACKTESTS=${BACKTESTS}: only the first ${BACKTESTS} parameter sets run as plain backtests.`);
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-optimizations-bench-'));
  const results = [];
  try {
    for (const workers of WORKERS) results.push(await measure(dir, workers));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('');
  console.log(
    '| workers | trials/s (optimization) | backtests/s | ratio | trial CPU ms (mean of computeMs) | child ms / trial (wall x workers / trials) | host CPU ms / trial | host CPU ms / backtest |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.workers} | ${fmt(r.trialsPerSecond)} (${r.trials} in ${fmt(r.optimizationSeconds, 2)} s) | ${fmt(r.backtestsPerSecond, 2)} (${BACKTESTS} in ${fmt(r.backtestSeconds, 1)} s) | ` +
        `${fmt(r.trialsPerSecond / r.backtestsPerSecond)}x | ${fmt(r.trialCpuMeanMs, 2)} | ${fmt(r.childMsPerTrial, 2)} | ${fmt(r.hostCpuMsPerTrial, 2)} | ${fmt(r.hostCpuMsPerBacktest, 1)} |`,
    );
  }
  console.log('');
  for (const r of results) {
    console.log(`${r.workers} worker(s): the optimization's best: ${r.best}; the best of the ${BACKTESTS} backtests: ${r.bestBacktest}`);
    const among = BACKTESTS < r.trials ? ` (the best of the same ${BACKTESTS} trials)` : '';
    console.log(
      `  best trial${among} = the backtest of largest Sharpe: ${r.bestMatches ? 'yes' : 'NO'}; ` +
        `backtests whose Sharpe differs from their trial's objective: ${r.mismatches} of ${BACKTESTS}`,
    );
  }
  console.log('');
  console.log('For scale, bench/trials.bench.ts (runTrials alone, no queue or store) measured about 70 / 124 trials/s with 1 / 2 workers.');
  console.log('Target (issue 16): at least 100 trials/s with 2 workers on this 2-core machine.');
}

await main();
