/**
 * Service-path benchmark (issue 28): the same 200-trial SMA(fast, slow) grid over a year of `1h`
 * candles on one symbol, run
 *   (a) through the example server's HTTP API: `POST /api/optimizations`, then followed on its
 *       WebSocket channel `optimization:<id>:progress` until `completed` (as docs/optimizations.md
 *       advises; polling at 2/s would round a two-second run up to the next half second);
 *   (b) through `strategyRunner.runTrials` alone, in this process, on a sandbox pool of the
 *       server's default size and per-user cap (so on the same number of children the server gives
 *       one user's optimization), with the inputs the optimization worker gives it (window, warm-up,
 *       period returns, seeds), the trials split in two calls as the worker's two parallel slices;
 *   (c) the same 200 parameter sets submitted as plain backtests through the API
 *       (`POST /api/backtests` each, then `GET /api/backtests?limit=200` polled at 2/s).
 * Rounds alternate a, b, c so that machine noise hits all alike. The server is the example server
 * as `pnpm start` runs it (its own process, SQLite in a temp DATA_DIR, default settings), its user
 * made with the CLI and given the `team` plan (200 backtests are over the free plan's 50).
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx service-path.bench.ts   (ROUNDS=n, default 2)
 *
 * Targets (issue 28): the API reaches at least 80 % of runTrials alone; through the API an
 * optimization runs at least 6x as many runs per second as the same runs as plain backtests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSandboxStrategyRunner, periodGrid } from '@stratbox/core';
import { createSyntheticMarketData } from '../packages/core/src/market-data/synthetic-market-data.js';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { createKyselyStore } from '@stratbox/store-kysely';
import { createSandboxPool, defaultSandboxSize } from '../packages/core/src/backtests/engine/backtest-pool.js';
import { loadBacktestCandles } from '../packages/core/src/backtests/load-backtest-candles.js';
import { WebSocket } from 'ws';
import { REFERENCE_STRATEGY } from './synthetic-candles.js';

const ROUNDS = Number(process.env.ROUNDS ?? 2);
const SERVER_DIR = resolve(fileURLToPath(new URL('../examples/server', import.meta.url)));
const SYMBOL = 'BTC/USDT:USDT';
const RUN = {
  symbols: [SYMBOL],
  startDate: '2023-01-01',
  endDate: '2023-12-31',
  timeframe: '1h' as const,
  fees: { maker: 0.0002, taker: 0.0005 },
  funding: false,
};
/** fast 2..11 (10 values) x slow 30..125 by 5 (20 values): 200 points. */
const SEARCH = { fast: { min: 2, max: 11, step: 1 }, slow: { min: 30, max: 125, step: 5 } };
const POLL_MS = 500;
/** While following an optimization on its WebSocket channel, a GET this often as well. */
const WATCH_POLL_MS = 1000;
const FINISHED = ['completed', 'failed', 'cancelled'];
const SOURCE = REFERENCE_STRATEGY.replace("timeframe: '1m'", "timeframe: '1h'");
const HOUR = 3_600_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (x: number, d = 1) => x.toFixed(d);

function gridParams(): Record<string, string>[] {
  const sets: Record<string, string>[] = [];
  for (let fast = SEARCH.fast.min; fast <= SEARCH.fast.max; fast += SEARCH.fast.step)
    for (let slow = SEARCH.slow.min; slow <= SEARCH.slow.max; slow += SEARCH.slow.step) sets.push({ fast: String(fast), slow: String(slow) });
  return sets;
}

/** Spawns the example server as `pnpm start` does and resolves with its URL once it listens. */
async function startServer(dataDir: string): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--conditions=@stratbox/source', '--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', STRATBOX_ROLE: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const port = await new Promise<number>((resolvePort, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        try {
          const entry = JSON.parse(line) as { msg?: string; port?: number };
          if (entry.msg === 'listening' && entry.port) resolvePort(entry.port);
        } catch {
          // not JSON
        }
      }
    });
    void exited.then(() => reject(new Error('the server exited before listening')));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Creates a user with the example server's CLI (`stratbox create-user`), then gives it the team plan in the server's store. */
async function createUser(dataDir: string): Promise<{ userId: string; apiKey: string }> {
  const out = await new Promise<string>((resolveOut, reject) => {
    const child = spawn(process.execPath, [join(SERVER_DIR, 'bin/stratbox.mjs'), 'create-user', 'bench'], {
      cwd: SERVER_DIR,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolveOut(stdout) : reject(new Error(`create-user exited ${code}`))));
  });
  const user = JSON.parse(out.trim()) as { userId: string; apiKey: string };
  const store = await createKyselyStore({ dialect: 'sqlite', filename: join(dataDir, 'stratbox.sqlite') });
  const now = new Date().toISOString();
  await store.subscriptions.putIfNotOlder({
    userId: user.userId,
    provider: 'bench',
    subscriptionId: 'sub_bench',
    customerId: null,
    tier: 'team',
    status: 'active',
    currentPeriodStart: now,
    currentPeriodEnd: new Date(Date.now() + 30 * 24 * HOUR).toISOString(),
    cancelAtPeriodEnd: false,
    eventCreatedAt: now,
    updatedAt: now,
  });
  await store.close();
  return user;
}

/**
 * (a) One optimization through the API, followed as docs/optimizations.md advises a client to:
 * on its WebSocket progress channel, with a GET every second besides (in case it finished before
 * the subscription took). Seconds from the POST to the first of the two that saw it finished;
 * then its best's backtest is waited for.
 */
async function viaApi(client: StratboxClient, strategyId: string, search: typeof SEARCH) {
  const started = performance.now();
  const created = await client.optimizations.create({ body: { strategyId, ...RUN, searchSpace: search, objective: 'sharpe', validation: { kind: 'none' } } });
  let polls = 0;
  let finishedAt = 0;
  const finished = new Promise<'event'>((resolveFinished) => {
    const stop = client.optimizations.watch(created.id, (event) => {
      if (!FINISHED.includes(event.status)) return;
      finishedAt ||= performance.now();
      stop();
      resolveFinished('event');
    });
  });
  let seenBy: 'event' | 'poll' = 'poll';
  for (;;) {
    if ((await Promise.race([finished, sleep(WATCH_POLL_MS)])) === 'event') seenBy = 'event';
    const o = await client.optimizations.get({ params: { id: created.id } });
    polls++;
    if (FINISHED.includes(o.status)) {
      const seconds = ((finishedAt || performance.now()) - started) / 1000;
      if (o.status !== 'completed') throw new Error(`optimization ${o.status}: ${JSON.stringify(o.error)}`);
      // The best's full backtest is queued at the end: let it finish before anything else is timed.
      if (o.best?.backtestId) await waitBacktests(client, 1);
      // The service's own time, from the record (what polling adds aside).
      const serviceSeconds = (Date.parse(o.finishedAt!) - Date.parse(o.createdAt)) / 1000;
      return { seconds, serviceSeconds, trials: o.trialsDone, polls, seenBy, best: o.best };
    }
  }
}

/** Waits until none of the user's last 200 backtests is queued or running, polling at 2/s. */
async function waitBacktests(client: StratboxClient, expected: number): Promise<number> {
  for (;;) {
    const page = await client.backtests.list({ query: { limit: 200 } });
    const open = page.backtests.filter((b) => !FINISHED.includes(b.status)).length;
    if (open === 0) {
      const failed = page.backtests.slice(0, expected).filter((b) => b.status !== 'completed');
      if (failed.length > 0) throw new Error(`${failed.length} backtests did not complete`);
      return page.backtests.length;
    }
    await sleep(POLL_MS);
  }
}

/** (c) The 200 parameter sets as plain backtests through the API. */
async function backtestsViaApi(client: StratboxClient, strategyId: string) {
  const sets = gridParams();
  const started = performance.now();
  await Promise.all(sets.map((params) => client.backtests.create({ body: { strategyId, ...RUN, params } })));
  await sleep(POLL_MS);
  await waitBacktests(client, sets.length);
  return { seconds: (performance.now() - started) / 1000, runs: sets.length };
}

/** (b) runTrials alone, with the inputs the optimization worker gives it, `parts` calls at once for one tenant. */
async function viaRunTrials(runner: ReturnType<typeof createSandboxStrategyRunner>, parts: number) {
  const info = await runner.inspect(SOURCE, {});
  const warmup = info.warmup ?? 0;
  const { series } = await loadBacktestCandles(createSyntheticMarketData(), { ...RUN, warmup });
  const start = Date.parse(`${RUN.startDate}T00:00:00.000Z`);
  const window = { start, end: Date.parse(`${RUN.endDate}T00:00:00.000Z`) + 24 * HOUR, warmup: Math.max(0, warmup - 1) };
  const input = {
    source: SOURCE,
    series,
    fees: RUN.fees,
    // the contract's defaults, as the server's optimization gets them
    leverage: 1,
    slippage: 0,
    initialCapital: 10_000,
    marketType: 'LINEAR' as const,
    window,
    periodMs: periodGrid(window, HOUR).periodMs,
  };
  const sets = gridParams();
  const size = Math.ceil(sets.length / parts);
  const signal = new AbortController().signal;
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: parts }, (_, p) =>
      runner.runTrials(
        input,
        sets.slice(p * size, (p + 1) * size).map((params, k) => ({ params, seed: p * size + k + 1 })),
        { signal, tenant: 'bench' },
      ),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const failed = outcomes.flat().filter((o) => !o.ok).length;
  if (failed > 0) throw new Error(`${failed} trials failed`);
  return { seconds, trials: sets.length };
}

async function main() {
  const size = defaultSandboxSize();
  const perUser = Math.ceil(size / 2);
  console.log(
    `Stratbox service-path bench: ${gridParams().length} trials of SMA(fast, slow) over ${RUN.startDate}..${RUN.endDate} of 1h candles on ${SYMBOL}; ` +
      `Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; sandbox pool ${size} children, ${perUser} per user (the server's default)`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'stratbox-service-path-bench-'));
  const server = await startServer(dataDir);
  const runner = createSandboxStrategyRunner(createSandboxPool({ size, maxRunningPerTenant: perUser }));
  const rows: { round: number; api: number; apiService: number; runTrials: number; backtests: number }[] = [];
  try {
    const user = await createUser(dataDir);
    const client = createStratboxClient({ baseUrl: server.url, apiKey: user.apiKey, WebSocket: WebSocket as never });
    const strategy = await client.strategies.create({ body: { name: 'sma', description: '', source: SOURCE, marketType: 'LINEAR' } });
    // Warm both sides: children started, QuickJS's hot paths compiled, candles cached.
    await viaApi(client, strategy.id, { fast: { min: 2, max: 5, step: 1 }, slow: { min: 30, max: 35, step: 5 } });
    await viaRunTrials(runner, 2);
    for (let round = 1; round <= ROUNDS; round++) {
      const a = await viaApi(client, strategy.id, SEARCH);
      const b = await viaRunTrials(runner, 2);
      const c = await backtestsViaApi(client, strategy.id);
      const row = { round, api: a.trials / a.seconds, apiService: a.trials / a.serviceSeconds, runTrials: b.trials / b.seconds, backtests: c.runs / c.seconds };
      rows.push(row);
      console.log(
        `round ${round}: API optimization ${fmt(row.api)} trials/s (${a.trials} in ${fmt(a.seconds, 2)} s, seen finished by ${a.seenBy === 'event' ? 'its WebSocket event' : 'a GET'}; ${fmt(row.apiService)} from created to finished) | ` +
          `runTrials alone ${fmt(row.runTrials)} trials/s (${fmt(b.seconds, 2)} s) | API backtests ${fmt(row.backtests, 2)} runs/s (${fmt(c.seconds, 1)} s)`,
      );
    }
  } finally {
    await runner.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const mean = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0) / rows.length;
  const api = mean((r) => r.api);
  const apiService = mean((r) => r.apiService);
  const alone = mean((r) => r.runTrials);
  const backtests = mean((r) => r.backtests);
  console.log('');
  console.log('| path | runs/s (mean of rounds) |');
  console.log('|---|---:|');
  console.log(`| API optimization (POST to its completion seen on the WebSocket channel) | ${fmt(api)} |`);
  console.log(`| API optimization (its createdAt to finishedAt) | ${fmt(apiService)} |`);
  console.log(`| runTrials alone (${perUser} of ${size} children, as the server gives one user) | ${fmt(alone)} |`);
  console.log(`| API plain backtests | ${fmt(backtests, 2)} |`);
  console.log('');
  console.log(
    `API / runTrials: ${fmt((100 * api) / alone, 0)} % as a client sees it, ${fmt((100 * apiService) / alone, 0)} % created to finished (target >= 80 %)`,
  );
  console.log(`API optimization / API backtests: ${fmt(api / backtests)}x (target >= 6x)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
