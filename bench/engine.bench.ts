/**
 * Backtest engine benchmark: bars per second of the reference SMA-crossover strategy through the
 * whole engine (child process, QuickJS sandbox, fills, equity marks, metrics, result shapes) on
 * 1,000,000 one-minute candles, for each QuickJS build (quickjs-speed, the default; quickjs, the
 * release build it is made from and the default before it; quickjs-ng), the builds taking turns
 * run by run, beside the same strategy logic as plain JavaScript in the host, and a one-year
 * (525,600 candles) end-to-end run; then quickjs-speed against quickjs, with whether their trades
 * are identical.
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx engine.bench.ts
 *   (COMPARE_ONLY=1 for the comparison with the previous engine alone; BARS=n for another size;
 *   ROUNDS=n runs per build, default 3; BUILDS=quickjs-speed,quickjs for some builds only)
 *
 * Then the same strategy on the previous engine (the ES5 runtime in a string, extracted from git
 * at PREVIOUS_ENGINE_COMMIT) and on the engine of the day issue 28 was filed (ISSUE_28_COMMIT,
 * "today's build" in its terms) beside this one, runs alternating, with their ratios.
 *
 * Targets (issue): >= 500,000 bars/s through the sandbox, 525,600 candles in under 2 s; the
 * typed-module engine no slower than the previous one; the default build at least 1.5x the
 * release build (issue 28).
 */
import { availableParallelism, loadavg } from 'node:os';
import { createSandboxPool } from '../packages/core/src/backtests/engine/backtest-pool.js';
import type { QuickJSBuild } from '../packages/core/src/sandbox/index.js';
import type { CandleColumns } from '../packages/core/src/backtests/engine/index.js';
import { ISSUE_28_COMMIT, loadIssueDayPool, loadPreviousEngine, PREVIOUS_ENGINE_COMMIT } from './previous-engine.js';
import { REFERENCE_STRATEGY, syntheticCandles } from './synthetic-candles.js';

const BARS = Number(process.env.BARS ?? 1_000_000);
const YEAR_BARS = 525_600;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
/** The builds compared, in turn (BUILDS=quickjs-speed,quickjs for two of them). */
const BUILDS = (process.env.BUILDS ?? 'quickjs-speed,quickjs,quickjs-ng').split(',') as QuickJSBuild[];
const FEES = { maker: 0.0002, taker: 0.0005 };

const STRATEGY = REFERENCE_STRATEGY;

/** The same strategy and fill model (next-open market fills, taker fee, equity marked per close) as plain host JavaScript. */
function hostBaseline(c: CandleColumns, capital = 10_000) {
  const n = c.time.length;
  const fast = 10;
  const slow = 50;
  let sumF = 0;
  let sumS = 0;
  let cash = capital;
  let qty = 0;
  let entry = 0;
  let pending = 0; // +1 buy, -1 close
  let trades = 0;
  const equity = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const o = c.open[i]!;
    const cl = c.close[i]!;
    if (pending > 0) {
      const eq = cash + qty * (o - entry);
      qty = (0.1 * eq) / o;
      entry = o;
      cash -= qty * o * FEES.taker;
    } else if (pending < 0 && qty !== 0) {
      cash += qty * (o - entry) - qty * o * FEES.taker;
      qty = 0;
      trades++;
    }
    pending = 0;
    sumF += cl;
    sumS += cl;
    if (i >= fast) sumF -= c.close[i - fast]!;
    if (i >= slow) sumS -= c.close[i - slow]!;
    equity[i] = cash + qty * (cl - entry);
    if (i >= slow - 1) {
      const f = sumF / fast;
      const s = sumS / slow;
      if (f > s && qty === 0) pending = 1;
      if (f < s && qty !== 0) pending = -1;
    }
  }
  return { trades, final: equity[n - 1]! };
}

function slice(c: CandleColumns, n: number): CandleColumns {
  return {
    time: (c.time as Float64Array).subarray(0, n),
    open: (c.open as Float64Array).subarray(0, n),
    high: (c.high as Float64Array).subarray(0, n),
    low: (c.low as Float64Array).subarray(0, n),
    close: (c.close as Float64Array).subarray(0, n),
    volume: (c.volume as Float64Array).subarray(0, n),
  };
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

async function main() {
  console.log(
    `Stratbox engine bench: ${fmt(BARS)} one-minute candles, SMA(10/50) crossover, Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `Sandbox rows: best of ${ROUNDS} end-to-end runs per build, the builds taking turns run by run (job sent to a warm child, QuickJS, fills, equity, metrics, result back), and the median.`,
  );
  const candles = syntheticCandles(BARS);
  // COMPARE_ONLY=1: only this engine beside the previous one.
  if (process.env.COMPARE_ONLY === '1') return compareWithPrevious(candles);

  // Host baseline: best of 3.
  let hostMs = Infinity;
  let hostTrades = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    hostTrades = hostBaseline(candles).trades;
    hostMs = Math.min(hostMs, performance.now() - t0);
  }
  const hostRate = BARS / (hostMs / 1000);

  type Row = {
    build: QuickJSBuild;
    ms: number;
    medianMs: number;
    rate: number;
    cpuMs: number;
    /** Median child CPU ms of the runs. */
    medianCpuMs: number;
    trades: number;
    /** Every trade of the last run, as JSON: the builds must agree exactly. */
    tradesJson: string;
    rss: number;
    yearMs: number;
    curveMs: number;
  };
  // Every build's pool is open at once and the builds take turns run by run, so all see the same machine load.
  const builds = BUILDS;
  const pools = builds.map((build) => createSandboxPool({ size: 1, build, cpuTimeMs: 120_000, rssLimitBytes: 3 * 1024 ** 3, maxOldSpaceSizeMb: 2048 }));
  const rows: Row[] = builds.map((build) => ({
    build,
    ms: Infinity,
    medianMs: 0,
    rate: 0,
    cpuMs: 0,
    medianCpuMs: 0,
    trades: 0,
    tradesJson: '',
    rss: 0,
    yearMs: Infinity,
    curveMs: 0,
  }));
  const walls: number[][] = builds.map(() => []);
  const cpus: number[][] = builds.map(() => []);
  try {
    // Warm each child with a whole run: V8 first runs QuickJS's WebAssembly from its baseline
    // compiler and moves a hot function to its optimizing one in the background, which takes longer
    // for quickjs-speed's bigger interpreter function (docs/engine.md: a new child's first job).
    for (const pool of pools) await pool.runBacktest({ source: STRATEGY, candles: { 'BTC/USDT:USDT': candles }, fees: FEES });
    for (let i = 0; i < ROUNDS; i++) {
      for (let k = 0; k < builds.length; k++) {
        const row = rows[k]!;
        const t0 = performance.now();
        const r = await pools[k]!.runBacktest({ source: STRATEGY, candles: { 'BTC/USDT:USDT': candles }, fees: FEES });
        const ms = performance.now() - t0;
        walls[k]!.push(ms);
        cpus[k]!.push(r.stats.cpuMs);
        if (ms < row.ms) {
          row.ms = ms;
          row.cpuMs = r.stats.cpuMs;
        }
        row.trades = r.trades.length;
        row.tradesJson = JSON.stringify(r.trades);
        row.rss = Math.max(row.rss, r.stats.peakRssBytes);
        const c0 = performance.now();
        if (r.equityCurve.length !== r.series.equity.length) throw new Error('equity curve mismatch');
        row.curveMs = performance.now() - c0;
      }
    }
    const year = slice(candles, Math.min(YEAR_BARS, BARS));
    for (let i = 0; i < 3; i++) {
      for (let k = 0; k < builds.length; k++) {
        const t0 = performance.now();
        await pools[k]!.runBacktest({ source: STRATEGY, candles: { 'BTC/USDT:USDT': year }, fees: FEES });
        rows[k]!.yearMs = Math.min(rows[k]!.yearMs, performance.now() - t0);
      }
    }
  } finally {
    for (const pool of pools) await pool.close();
  }
  rows.forEach((row, k) => {
    row.medianMs = walls[k]!.sort((a, b) => a - b)[walls[k]!.length >> 1]!;
    row.medianCpuMs = cpus[k]!.sort((a, b) => a - b)[cpus[k]!.length >> 1]!;
    row.rate = BARS / (row.ms / 1000);
  });

  console.log('');
  console.log(
    '| engine | bars/s (wall) | wall ms | median: bars/s | child CPU ms | bars per child CPU-second | trades | vs host JS | 525,600 bars | peak child RSS |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(`| host JS (no sandbox) | ${fmt(hostRate)} | ${hostMs.toFixed(1)} | - | - | - | ${hostTrades} | 1.00x | - | - |`);
  for (const r of rows) {
    console.log(
      `| ${r.build} sandbox | ${fmt(r.rate)} | ${fmt(r.ms)} | ${fmt(BARS / (r.medianMs / 1000))} | ${fmt(r.cpuMs)} | ${fmt(BARS / (r.cpuMs / 1000))} | ${r.trades} | ${(r.rate / hostRate).toFixed(4)}x (1/${fmt(hostRate / r.rate)}) | ${r.yearMs.toFixed(0)} ms | ${mb(r.rss)} |`,
    );
  }
  const speed = rows.find((r) => r.build === 'quickjs-speed');
  const release = rows.find((r) => r.build === 'quickjs');
  if (speed && release) {
    console.log('');
    console.log(
      `quickjs-speed (default) / quickjs (the release build, the default before): ${(release.ms / speed.ms).toFixed(2)}x wall (best), ` +
        `${(release.medianMs / speed.medianMs).toFixed(2)}x wall (median), ${(release.medianCpuMs / speed.medianCpuMs).toFixed(2)}x per child CPU-second (median); ` +
        `the same trades: ${speed.tradesJson === release.tradesJson} (target >= 1.5x, issue 28)`,
    );
  }
  const fastest = rows.reduce((a, b) => (b.rate > a.rate ? b : a));
  console.log('');
  console.log(`faster build: ${fastest.build} (${fmt(fastest.rate)} bars/s; target >= 500,000)`);
  console.log(`one year of 1-minute candles end to end: ${fmt(fastest.yearMs)} ms (target < 2,000 ms)`);
  console.log(`building the contract-shaped equity curve (${fmt(BARS)} ISO-timestamped points, on first access): ${fmt(fastest.curveMs)} ms`);
  await compareWithPrevious(candles);
}

/** This engine beside the previous one (quickjs build), runs alternating so both see the same machine load. */
async function compareWithPrevious(candles: CandleColumns) {
  console.log('');
  let createPrevious;
  try {
    createPrevious = await loadPreviousEngine();
  } catch (error) {
    console.log(
      `previous engine (${PREVIOUS_ENGINE_COMMIT.slice(0, 7)}): not available here (${error instanceof Error ? error.message.split('\n')[0] : error})`,
    );
    return;
  }
  const options = { size: 1, build: 'quickjs', cpuTimeMs: 120_000, rssLimitBytes: 3 * 1024 ** 3, maxOldSpaceSizeMb: 2048 };
  const createIssueDay = await loadIssueDayPool();
  const engines = [
    { name: `previous engine (${PREVIOUS_ENGINE_COMMIT.slice(0, 7)}, runtime in a string)`, pool: createPrevious(options) },
    { name: `the engine of the day issue 28 was filed (${ISSUE_28_COMMIT.slice(0, 7)})`, pool: createIssueDay(options) },
    { name: 'this engine (typed modules)', pool: createSandboxPool(options as Parameters<typeof createSandboxPool>[0]) },
    {
      name: 'this engine, quickjs-speed build (the default)',
      pool: createSandboxPool({ ...options, build: 'quickjs-speed' } as Parameters<typeof createSandboxPool>[0]),
    },
  ];
  const job = { source: STRATEGY, candles: { 'BTC/USDT:USDT': candles }, fees: FEES };
  const results = engines.map(() => ({ wallMs: Infinity, cpuMs: Infinity, trades: 0 }));
  try {
    for (const e of engines) await e.pool.runBacktest({ ...job, candles: { 'BTC/USDT:USDT': slice(candles, 20_000) } });
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < engines.length; k++) {
        const t0 = performance.now();
        const r = await engines[k]!.pool.runBacktest(job);
        const wallMs = performance.now() - t0;
        const best = results[k]!;
        best.wallMs = Math.min(best.wallMs, wallMs);
        best.cpuMs = Math.min(best.cpuMs, r.stats.cpuMs);
        best.trades = r.trades.length;
      }
    }
  } finally {
    for (const e of engines) await e.pool.close();
  }
  console.log('| best of 3 alternating runs (quickjs build unless named) | bars/s (wall) | bars per child CPU-second | trades |');
  console.log('|---|---:|---:|---:|');
  engines.forEach((e, k) => {
    const r = results[k]!;
    console.log(`| ${e.name} | ${fmt(BARS / (r.wallMs / 1000))} | ${fmt(BARS / (r.cpuMs / 1000))} | ${r.trades} |`);
  });
  const [before, issueDay, after, speed] = results as [(typeof results)[0], (typeof results)[0], (typeof results)[0], (typeof results)[0]];
  console.log('');
  console.log(
    `this engine / previous: ${(before.wallMs / after.wallMs).toFixed(2)}x wall, ${(before.cpuMs / after.cpuMs).toFixed(2)}x per child CPU-second (target >= 1.00x; the same trades: ${before.trades === after.trades})`,
  );
  console.log(
    `this engine on quickjs-speed / previous: ${(before.wallMs / speed.wallMs).toFixed(2)}x wall, ${(before.cpuMs / speed.cpuMs).toFixed(2)}x per child CPU-second (the same trades: ${before.trades === speed.trades})`,
  );
  console.log(
    `this engine on quickjs-speed (the default) / the issue's day: ${(issueDay.wallMs / speed.wallMs).toFixed(2)}x wall, ${(issueDay.cpuMs / speed.cpuMs).toFixed(2)}x per child CPU-second ` +
      `(the same trades: ${issueDay.trades === speed.trades}; target >= 1.5x, issue 28)`,
  );
}

await main();
