/**
 * Sweep benchmark (issue 16): trials per second of the SMA(fast, slow) crossover over one year of
 * 1h candles on one symbol, run as the trials of a sweep (`pool.runTrials`: the candles go to a
 * child once, each trial is a whole backtest in a fresh QuickJS runtime) beside the same runs as
 * separate backtests (`pool.runBacktest`: candles and a full result cross between processes on
 * every run), with one and with two child processes, in one process run. The sweep runs twice:
 * as one call per child, and as an optimization calls it, in slices of 50 trials over a window
 * (the whole year, warm-up 50) with period returns on `periodGrid`'s grid; the candle bytes sent
 * to the children in that second run show that each child receives the candles once.
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx trials.bench.ts   (TRIALS=n, default 1000)
 *   ROUNDS=n (default 4) rounds of the snapshots comparison, which runs first; ONLY=snapshots stops after it.
 *
 * First, trials that start warm (issue 28): the sweep on one child with `snapshots` (each trial
 * from a snapshot of the guest runtime, the default) on the default build (quickjs-speed) and on
 * the release build (quickjs), against the runtime evaluated per trial on the release build (the
 * old cold path), in alternating rounds, with the ratios of their medians.
 *
 * Both sides here skip the job queue and the store, which a backtest submitted over HTTP also pays
 * (the issue measured about 5 backtests/s that way). Target (issue): at least 100 trials/s on this
 * 2-core machine.
 */
import { availableParallelism, loadavg } from 'node:os';
import { createSandboxPool, type TrialsOptions } from '../packages/core/src/backtests/engine/backtest-pool.js';
import { periodGrid } from '../packages/core/src/backtests/engine/period-returns.js';
import type { QuickJSBuild } from '../packages/core/src/sandbox/index.js';
import { ISSUE_28_COMMIT, loadIssueDayPool } from './previous-engine.js';
import { REFERENCE_STRATEGY, syntheticCandles } from './synthetic-candles.js';

const TRIALS = Number(process.env.TRIALS ?? 1000);
/** Rounds of the snapshots comparison (alternating which path goes first). */
const ROUNDS = Number(process.env.ROUNDS ?? 4);
/** The builds whose snapshot trials are compared (BUILDS=quickjs-speed for the default alone). */
const BUILDS = (process.env.BUILDS ?? 'quickjs-speed,quickjs').split(',') as QuickJSBuild[];
const HOUR = 3_600_000;
const YEAR_HOURS = 8760;
const FEES = { maker: 0.0002, taker: 0.0005 };

/** The reference SMA crossover, on 1h candles. */
const SOURCE = REFERENCE_STRATEGY.replace("timeframe: '1m'", "timeframe: '1h'");

/** `count` parameter sets: fast 2..26 by 1 against slow 30, 35, ... (a 25 x 40 grid for 1000). */
function grid(count: number): Record<string, string>[] {
  const sets: Record<string, string>[] = [];
  for (let k = 0; sets.length < count; k++) sets.push({ fast: String(2 + (k % 25)), slow: String(30 + 5 * Math.floor(k / 25)) });
  return sets;
}

function hourly() {
  const c = syntheticCandles(YEAR_HOURS);
  const start = c.time[0]!;
  for (let i = 0; i < YEAR_HOURS; i++) c.time[i] = start + i * HOUR;
  return { 'BTC/USDT:USDT': c };
}

const SLICE = 50;
const fmt = (x: number) => x.toFixed(1);

/** How the runs are made: one `runTrials` call per child, slices of `SLICE` trials with a window and period returns, or one `runBacktest` each. */
type Mode = 'trials' | 'slices' | 'backtests';

async function measure(workers: number, sets: Record<string, string>[], mode: Mode): Promise<{ perSecond: number; candleBytes: number }> {
  const pool = createSandboxPool({ size: workers, maxRunningPerTenant: workers, cpuTimeMs: 60_000 });
  const candles = hourly();
  const job = { source: SOURCE, candles, fees: FEES, timeframe: '1h' as const };
  const times = candles['BTC/USDT:USDT'].time;
  const window = { start: times[0]!, end: times[YEAR_HOURS - 1]! + HOUR, warmup: 50 };
  const options: TrialsOptions = mode === 'slices' ? { window, periods: { periodMs: periodGrid(window, HOUR).periodMs } } : {};
  const check = (done: { ok: boolean }[]) => {
    const failed = done.filter((t) => !t.ok);
    if (failed.length > 0) throw new Error(`${failed.length} trials failed`);
  };
  try {
    // Warm every child first (the first job of a child also compiles QuickJS's hot paths in V8).
    await Promise.all(Array.from({ length: workers }, () => pool.runTrials(job, sets.slice(0, 2), options)));
    const started = performance.now();
    if (mode === 'trials') {
      // One slice of the sweep per child.
      const slice = Math.ceil(sets.length / workers);
      const parts = Array.from({ length: workers }, (_, w) => sets.slice(w * slice, (w + 1) * slice));
      check((await Promise.all(parts.map((part) => pool.runTrials(job, part)))).flat());
    } else if (mode === 'slices') {
      let next = 0;
      await Promise.all(
        Array.from({ length: workers }, async () => {
          while (next < sets.length) {
            const part = sets.slice(next, (next += SLICE));
            check(await pool.runTrials(job, part, options));
          }
        }),
      );
    } else {
      let next = 0;
      await Promise.all(
        Array.from({ length: workers }, async () => {
          while (next < sets.length) await pool.runBacktest({ ...job, params: sets[next++]! });
        }),
      );
    }
    return { perSecond: sets.length / ((performance.now() - started) / 1000), candleBytes: pool.stats().candleBytesShipped };
  } finally {
    await pool.close();
  }
}

/** One way of running the sweep in the snapshots comparison, on a pool of its own. */
interface SweepPath {
  name: string;
  run(job: object, sets: Record<string, string>[]): Promise<Array<{ ok: boolean; cpuMs: number; trades?: number; metrics?: { totalReturn: number | null } }>>;
  close(): Promise<void>;
}

/**
 * Trials that start warm (issue 28): the same sweep on one child per path, in alternating rounds:
 * - each trial from a snapshot (`snapshots`, the default: the guest runtime and the strategy
 *   loaded) on each of `BUILDS`;
 * - the runtime evaluated afresh per trial on the release build `quickjs`, in today's code (the
 *   old cold path);
 * - the engine of the day the issue was filed (`ISSUE_28_COMMIT`, extracted from git): "today's
 *   path" as the issue measured it (ISSUE_DAY=0 leaves it out).
 * Trials/s is wall time (the machine's load shows in it); CPU ms/trial is what the trials report
 * as their own (`cpuMs`), the first trial of a call counting the snapshot's build.
 */
async function compareSnapshots(sets: Record<string, string>[], rounds: number): Promise<void> {
  const candles = hourly();
  const job = { source: SOURCE, candles, fees: FEES, timeframe: '1h' as const };
  const options = { size: 1, maxRunningPerTenant: 1, cpuTimeMs: 60_000 };
  const today = (name: string, build: QuickJSBuild, snapshots: boolean): SweepPath => {
    const pool = createSandboxPool({ ...options, build });
    return { name, run: (j, part) => pool.runTrials(j as never, part, { snapshots }), close: () => pool.close() };
  };
  const paths: SweepPath[] = [
    ...BUILDS.map((build) => today(`snapshots, ${build}`, build, true)),
    today('runtime per trial, quickjs (the old cold path)', 'quickjs', false),
  ];
  if (process.env.ISSUE_DAY !== '0') {
    const pool = (await loadIssueDayPool())(options);
    paths.push({
      name: `the issue's day (${ISSUE_28_COMMIT.slice(0, 7)}): runtime per trial, quickjs`,
      run: (j, part) => pool.runTrials(j, part),
      close: () => pool.close(),
    });
  }
  const seen = new Map<string, { perSecond: number[]; cpuMs: number[] }>(paths.map((p) => [p.name, { perSecond: [], cpuMs: [] }]));
  const answers = new Map<string, string>();
  try {
    for (const path of paths) await path.run(job, sets.slice(0, 4));
    console.log(`| round | path | trials/s | CPU ms/trial (trials' own) |`);
    console.log('|---:|---|---:|---:|');
    for (let round = 1; round <= rounds; round++) {
      for (const path of round % 2 === 1 ? paths : [...paths].reverse()) {
        const started = performance.now();
        const trials = await path.run(job, sets);
        const perSecond = sets.length / ((performance.now() - started) / 1000);
        const failed = trials.filter((t) => !t.ok).length;
        if (failed > 0) throw new Error(`${failed} trials failed (${path.name})`);
        const cpuMs = trials.reduce((sum, t) => sum + t.cpuMs, 0) / trials.length;
        seen.get(path.name)!.perSecond.push(perSecond);
        seen.get(path.name)!.cpuMs.push(cpuMs);
        answers.set(path.name, JSON.stringify(trials.map((t) => (t.ok ? [t.metrics!.totalReturn, t.trades] : null))));
        console.log(`| ${round} | ${path.name} | ${fmt(perSecond)} | ${fmt(cpuMs)} |`);
      }
    }
  } finally {
    for (const path of paths) await path.close();
  }
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const warmPaths = paths.slice(0, BUILDS.length);
  for (const base of paths.slice(BUILDS.length)) {
    const cold = seen.get(base.name)!;
    console.log('');
    console.log(`Against ${base.name}, median of ${rounds} rounds:`);
    for (const path of warmPaths) {
      const warm = seen.get(path.name)!;
      console.log(
        `- ${path.name}: ${fmt(median(warm.perSecond))} against ${fmt(median(cold.perSecond))} trials/s, ` +
          `${(median(warm.perSecond) / median(cold.perSecond)).toFixed(2)}x wall; ${fmt(median(warm.cpuMs))} against ${fmt(median(cold.cpuMs))} CPU ms/trial, ` +
          `${(median(cold.cpuMs) / median(warm.cpuMs)).toFixed(2)}x CPU. Same answers: ${answers.get(path.name) === answers.get(base.name)}.`,
      );
    }
  }
  console.log('Target (issue 28): at least 2x on 1,000 SMA trials over a year of 1h, against the path of the day the issue was filed.');
}

async function main() {
  console.log(
    `Stratbox sweep bench: ${TRIALS} runs of SMA(fast, slow) over ${YEAR_HOURS} 1h candles, Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const sets = grid(TRIALS);
  console.log('');
  await compareSnapshots(sets, ROUNDS);
  if (process.env.ONLY === 'snapshots') return;
  console.log('');
  console.log(
    `| workers | trials/s (runTrials) | trials/s (slices of ${SLICE}, window, period returns) | candle KB sent (slices) | backtests/s (runBacktest each) | ratio |`,
  );
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const workers of [1, 2]) {
    const trials = await measure(workers, sets, 'trials');
    const slices = await measure(workers, sets, 'slices');
    const backtests = await measure(workers, sets, 'backtests');
    const ratio = (trials.perSecond / backtests.perSecond).toFixed(2);
    console.log(
      `| ${workers} | ${fmt(trials.perSecond)} | ${fmt(slices.perSecond)} | ${fmt(slices.candleBytes / 1024)} | ${fmt(backtests.perSecond)} | ${ratio}x |`,
    );
  }
  console.log('');
  console.log('Target (issue 16): at least 100 trials/s with 2 workers on this 2-core machine.');
}

await main();
