/**
 * Live deployments benchmark (issue 24): many paper deployments on one node, through the real
 * service (`createStratbox`: the deployment supervisor, one live sandbox child per deployment, the
 * `paper` exchange filling against the default synthetic candles, a SQLite store in a temp dir).
 * Each deployment has its own paper credential and runs a `1m` strategy that sends a market order
 * on every third candle (a buy when flat, a close when long).
 *
 * The clock runs SPEED times faster than real time and the supervisor polls every 5 000 / SPEED
 * real ms, so polls, candles and reconciliation keep the proportions of a real node with the
 * default 5 s poll: a figure per clock minute is a figure per minute of such a node.
 *
 * Printed side by side, for 1 deployment and for N on the same node in one run:
 *   - exchange requests per deployment per minute (every call into the ExchangeGateway the pool
 *     hands out, counted by a wrapper, over the measured window; with the split by method; `market`
 *     and `loadMarkets` answer from markets loaded once, so they are shown but not counted);
 *   - p50 / p99 from a candle's close (its close time on the clock) to its order sent (the moment
 *     createOrder is called), in real ms (what the node adds at this speed) and in clock ms (the
 *     poll wait at a real node's scale plus the node's work times SPEED).
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx deployments.bench.ts
 *   BENCH_DEPLOYMENTS=200, BENCH_SPEED=20, BENCH_MINUTES=20 (clock minutes measured after all run),
 *   BENCH_START_BATCH=10 (deployments started at once while ramping up), BENCH_STORE=sqlite|memory,
 *   BENCH_WORKER=built|source (the live sandbox child bundled as the published package runs it, or
 *   from TypeScript sources through tsx as tests run it).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, freemem, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createCandlePriceSource,
  createExchangeClientPool,
  createMarketData,
  createMarketDataFundingSource,
  createMemoryStore,
  createSilentLogger,
  createStorePaperPersistence,
  createStratbox,
  type Clock,
  type ExchangeClientPool,
  type ExchangeGateway,
  type Store,
} from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';
import { bundleGuestScript } from '../packages/core/src/engine/guest-bundle.js';

const N = Number(process.env.BENCH_DEPLOYMENTS ?? 200);
const SPEED = Number(process.env.BENCH_SPEED ?? 20);
const MINUTES = Number(process.env.BENCH_MINUTES ?? 20);
const START_BATCH = Number(process.env.BENCH_START_BATCH ?? 10);
const STORE = process.env.BENCH_STORE ?? 'sqlite';
const WORKER = process.env.BENCH_WORKER ?? 'built';
/** Ramping up stops (and the figures say how many run) when the machine has less memory available than this. */
const MIN_AVAILABLE_MB = Number(process.env.BENCH_MIN_AVAILABLE_MB ?? 2500);
const POLL_MS = Math.max(1, Math.round(5000 / SPEED));
const SYMBOL = 'BTC/USDT:USDT';
const MINUTE = 60_000;
/** Gateway calls answered from the markets loaded once (no request after the first): shown, not counted as requests. */
const CACHED = new Set(['market', 'loadMarkets']);
/** Orders go out on candles whose open minute is a multiple of EVERY. */
const EVERY = 3;

const SOURCE = `
export const meta = { timeframe: '1m', warmup: 2, params: {} };
export function onCandle(ctx, candle) {
  if (Math.floor(candle.time / 60000) % ${EVERY} !== 0) return;
  if (ctx.orders(candle.symbol).length > 0) return;
  if (ctx.position(candle.symbol)) ctx.close(candle.symbol);
  else ctx.buy(candle.symbol, { quantity: 0.001 });
}
`;

/** MemAvailable of /proc/meminfo in MB (os.freemem() where there is none). */
function availableMb(): number {
  try {
    const line = readFileSync('/proc/meminfo', 'utf8').match(/^MemAvailable:\s+(\d+) kB/m);
    if (line) return Number(line[1]) / 1024;
  } catch {
    // not Linux
  }
  return freemem() / 1024 / 1024;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

/**
 * The live sandbox child as the built package runs it: the worker entry bundled (as tsup does) and
 * the guest runtime beside it, under packages/core/node_modules/.cache so its packages resolve.
 * From sources each child would load tsx and transpile core, about twice the memory per child.
 */
function buildLiveWorker(): string {
  const core = fileURLToPath(new URL('../packages/core/', import.meta.url));
  const out = join(core, 'node_modules', '.cache', 'stratbox-bench');
  const { buildSync } = createRequire(join(core, 'package.json'))('esbuild') as { buildSync(options: Record<string, unknown>): unknown };
  const entry = join(out, 'sandbox', 'live-worker-entry.js');
  buildSync({
    entryPoints: [join(core, 'src', 'deployments', 'live-worker-entry.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // npm packages stay external (resolved from core's node_modules); workspace packages are bundled from their sources.
    external: ['quickjs-emscripten-core', '@jitl/*', 'zod', 'esbuild', 'typescript'],
    conditions: ['@stratbox/source'],
    outfile: entry,
    logLevel: 'warning',
  });
  mkdirSync(join(out, 'guest'), { recursive: true });
  writeFileSync(join(out, 'guest', 'live-runtime.js'), bundleGuestScript(join(core, 'src', 'engine', 'guest', 'live-runtime.ts')));
  return entry;
}

/** A clock `factor` times faster than real time from now on, never going back (as tests/src/harness/accelerated-clock.ts). */
function acceleratedClock(factor: number): Clock & { realAt(clockMs: number): number } {
  const realStart = Date.now();
  let last = 0;
  return {
    now() {
      last = Math.max(last, realStart + (Date.now() - realStart) * factor);
      return new Date(last);
    },
    realAt: (clockMs) => realStart + (clockMs - realStart) / factor,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Counter {
  measuring: boolean;
  calls: Map<string, number>;
  /** Per order sent while measuring: clock ms and real ms from its candle's close. */
  latencies: Array<{ clockMs: number; realMs: number }>;
}

/** The pool's gateways, wrapped: every call counts, and createOrder records how long after its candle's close it went out. */
function countingPool(inner: ExchangeClientPool, clock: ReturnType<typeof acceleratedClock>, counter: Counter): ExchangeClientPool {
  const wrapped = new WeakMap<ExchangeGateway, ExchangeGateway>();
  const wrap = (gateway: ExchangeGateway): ExchangeGateway =>
    new Proxy(gateway, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return (...args: unknown[]) => {
          if (counter.measuring) {
            counter.calls.set(property, (counter.calls.get(property) ?? 0) + 1);
            if (property === 'createOrder') {
              const sentReal = Date.now();
              const sentClock = clock.now().getTime();
              // The candle it answers: the last one closed whose open minute is a multiple of EVERY.
              const open = Math.floor((sentClock - MINUTE) / (EVERY * MINUTE)) * EVERY * MINUTE;
              const close = open + MINUTE;
              counter.latencies.push({ clockMs: sentClock - close, realMs: sentReal - clock.realAt(close) });
            }
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return {
    ...inner,
    async acquire(credential, marketType) {
      const gateway = await inner.acquire(credential, marketType);
      let proxy = wrapped.get(gateway);
      if (!proxy) wrapped.set(gateway, (proxy = wrap(gateway)));
      return proxy;
    },
    release: (id) => inner.release(id),
    clients: () => inner.clients(),
    close: () => inner.close(),
  };
}

interface Figures {
  deployments: number;
  running: number;
  failed: number;
  rampSeconds: number;
  windowClockMinutes: number;
  requestsPerDeploymentMinute: number;
  byMethod: Map<string, number>;
  orders: number;
  realP50: number;
  realP99: number;
  clockP50: number;
  clockP99: number;
}

async function measure(count: number, workerPath: string | null): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-bench-deployments-'));
  const store: Store = STORE === 'memory' ? createMemoryStore() : await createKyselyStore({ dialect: 'sqlite', filename: join(dir, 'stratbox.sqlite') });
  const clock = acceleratedClock(SPEED);
  const counter: Counter = { measuring: false, calls: new Map(), latencies: [] };
  const marketData = createMarketData({ store, clock });
  const logger = createSilentLogger();
  const inner = createExchangeClientPool({
    clock,
    logger,
    paper: {
      prices: createCandlePriceSource({ marketData, clock }),
      funding: createMarketDataFundingSource({ marketData, clock }),
      clock,
      persistence: (credentialId, marketType) => createStorePaperPersistence(store, clock, credentialId, marketType),
    },
  });
  const stratbox = createStratbox({
    store,
    clock,
    logger,
    marketData,
    billing: { plans: { free: { limits: { deployments: count + 10, computeSeconds: 10_000_000 } } } },
    deployments: { exchanges: countingPool(inner, clock, counter), pollIntervalMs: POLL_MS, ...(workerPath ? { sandbox: { workerPath } } : {}) },
  });
  try {
    await stratbox.start();
    const { userId } = await stratbox.users.createUser('bench');
    const strategyId = (await stratbox.strategies.create(userId, { name: 'every third candle', source: SOURCE })).id;
    const ids: string[] = [];
    const rampStarted = performance.now();
    const statusOf = async (id: string) => (await stratbox.deployments.get(userId, id)).status;
    for (let i = 0; i < count; i += START_BATCH) {
      if (availableMb() < MIN_AVAILABLE_MB) {
        console.log(`  stopped ramping up at ${i} deployments: ${Math.round(availableMb())} MB of memory available`);
        break;
      }
      const batch = await Promise.all(
        Array.from({ length: Math.min(START_BATCH, count - i) }, async (_, j) => {
          const credentialId = (await stratbox.credentials.create(userId, { exchange: 'paper', label: `paper ${i + j}` })).id;
          return (await stratbox.deployments.create(userId, { strategyId, credentialId, symbols: [SYMBOL] })).id;
        }),
      );
      ids.push(...batch);
      // Started a batch at a time: each forks a sandbox child and warms its strategy up.
      for (;;) {
        const statuses = await Promise.all(batch.map(statusOf));
        if (statuses.every((s) => s !== 'starting')) break;
        await sleep(50);
      }
    }
    const rampSeconds = (performance.now() - rampStarted) / 1000;
    // The window starts on a candle boundary of the clock and lasts MINUTES clock minutes.
    const boundary = Math.ceil(clock.now().getTime() / MINUTE) * MINUTE;
    while (clock.now().getTime() < boundary) await sleep(5);
    counter.measuring = true;
    const windowStart = clock.now().getTime();
    while (clock.now().getTime() < windowStart + MINUTES * MINUTE) await sleep(20);
    counter.measuring = false;
    const windowClockMinutes = (clock.now().getTime() - windowStart) / MINUTE;
    const statuses = await Promise.all(ids.map(statusOf));
    const running = statuses.filter((s) => s === 'running').length;
    const failedId = ids.find((_, i) => statuses[i] === 'failed');
    if (failedId) console.log(`  a failed deployment: ${JSON.stringify((await stratbox.deployments.get(userId, failedId)).error)}`);
    const total = [...counter.calls].reduce((sum, [method, calls]) => (CACHED.has(method) ? sum : sum + calls), 0);
    const real = counter.latencies.map((l) => l.realMs).sort((a, b) => a - b);
    const clockMs = counter.latencies.map((l) => l.clockMs).sort((a, b) => a - b);
    return {
      deployments: ids.length,
      running,
      failed: statuses.filter((s) => s === 'failed').length,
      rampSeconds,
      windowClockMinutes,
      requestsPerDeploymentMinute: total / ids.length / windowClockMinutes,
      byMethod: new Map([...counter.calls].map(([method, calls]) => [method, calls / ids.length / windowClockMinutes])),
      orders: counter.latencies.length,
      realP50: percentile(real, 50),
      realP99: percentile(real, 99),
      clockP50: percentile(clockMs, 50),
      clockP99: percentile(clockMs, 99),
    };
  } finally {
    await stratbox.close().catch((error: unknown) => console.error('close failed:', error instanceof Error ? error.message : error));
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(
    `Live deployments on one node: paper exchange, 1m strategy ordering every ${EVERY} candles, clock x${SPEED}, poll ${POLL_MS} ms real (5 s at x1), ${MINUTES} clock minutes measured, store ${STORE}, sandbox worker ${WORKER}`,
  );
  console.log(
    `machine: ${availableParallelism()} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const workerPath = WORKER === 'built' ? buildLiveWorker() : null;
  const sizes = N > 1 ? [1, N] : [N];
  const results: Figures[] = [];
  for (const size of sizes) {
    const figures = await measure(size, workerPath);
    results.push(figures);
    console.log(
      `  ${size} deployment(s): ramp ${fmt(figures.rampSeconds)} s, ${figures.running} running, ${figures.failed} failed, ${figures.orders} orders in ${fmt(figures.windowClockMinutes)} clock min`,
    );
  }
  const rows: Array<[string, (f: Figures) => string]> = [
    ['exchange requests / deployment / minute', (f) => fmt(f.requestsPerDeploymentMinute, 2)],
    ...[...new Set(results.flatMap((f) => [...f.byMethod.keys()]))]
      .sort()
      .map((method): [string, (f: Figures) => string] => [
        `  ${method}${CACHED.has(method) ? ' (cached, not counted)' : ''}`,
        (f) => fmt(f.byMethod.get(method) ?? 0, 2),
      ]),
    ['orders sent in the window', (f) => String(f.orders)],
    ['candle close -> order sent p50 (real ms)', (f) => fmt(f.realP50, 0)],
    ['candle close -> order sent p99 (real ms)', (f) => fmt(f.realP99, 0)],
    ['candle close -> order sent p50 (clock ms)', (f) => fmt(f.clockP50, 0)],
    ['candle close -> order sent p99 (clock ms)', (f) => fmt(f.clockP99, 0)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`\n${''.padEnd(width)}  ${results.map((f) => `${f.deployments} dep.`.padStart(10)).join('  ')}${results.length === 2 ? '       ratio' : ''}`);
  for (const [label, value] of rows) {
    const cells = results.map((f) => value(f).padStart(10));
    let ratio = '';
    if (results.length === 2) {
      const [a, b] = results.map((f) => Number(value(f)));
      ratio = Number.isFinite(a! / b!) && a !== 0 ? `${fmt(b! / a!, 2)}x`.padStart(12) : ''.padStart(12);
    }
    console.log(`${label.padEnd(width)}  ${cells.join('  ')}${ratio}`);
  }
}

await main();
