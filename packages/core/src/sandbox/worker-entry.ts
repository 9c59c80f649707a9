/**
 * Entry of a sandbox child process (forked by `createSandboxPool`). Runs one job at a time:
 * each in a fresh QuickJS instance and runtime. Never imported by the host.
 */
import { runBacktestInGuest } from '../backtests/engine/run-in-guest.js';
import { inspectStrategyInGuest } from './inspect-strategy.js';
import { DEFAULT_QUICKJS_BUILD } from './quickjs-variants.js';
import { SandboxError } from './sandbox-error.js';
import type { ChildMessage, ParentMessage } from './worker-protocol.js';

const cancelled = new Set<number>();
let current: number | null = null;

/*
 * A job runs synchronously inside QuickJS between batches, so the 'disconnect' event of a dead
 * parent waits until the batch ends. The interrupt handler asks `isCancelled` every few thousand
 * guest operations; this also notices, within 100 ms, that the child was re-parented (its parent
 * died, even by SIGKILL), so an orphan never burns CPU until its job's deadline.
 */
const PARENT_PID = process.ppid;
let orphaned = false;
let nextParentCheck = 0;
function parentGone(): boolean {
  if (orphaned) return true;
  const now = performance.now();
  if (now < nextParentCheck) return false;
  nextParentCheck = now + 100;
  orphaned = process.ppid !== PARENT_PID;
  return orphaned;
}

function send(message: ChildMessage): void {
  process.send?.(message);
}

function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

function fail(id: number, error: unknown): void {
  const e =
    error instanceof SandboxError ? error : new SandboxError('CRASHED', `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`);
  const recycle = !(error instanceof SandboxError) || e.code === 'STACK_OVERFLOW' || e.code === 'MEMORY_LIMIT' || e.code === 'CRASHED';
  send({ type: 'error', id, code: e.code, message: e.message, details: e.details ?? null, logs: e.logs, cpuMs: e.cpuMs, recycle });
}

async function handle(message: ParentMessage): Promise<void> {
  if (message.type === 'cancel') {
    if (message.id === current) cancelled.add(message.id);
    return;
  }
  const { id } = message;
  current = id;
  const isCancelled = () => cancelled.has(id) || parentGone();
  try {
    if (message.type === 'inspect') {
      const info = await inspectStrategyInGuest(message.source, message.limits, isCancelled);
      send({ type: 'inspected', id, info, recycle: false });
    } else {
      let last = 0;
      const output = await runBacktestInGuest(message.job, message.limits, {
        isCancelled,
        onProgress(processed, total) {
          const now = performance.now();
          if (processed < total && now - last < message.progressIntervalMs) return;
          last = now;
          send({ type: 'progress', id, processed, total });
        },
      });
      send({ type: 'result', id, output, peakRssBytes: peakRss(), recycle: false });
    }
  } catch (error) {
    fail(id, error);
  } finally {
    current = null;
    cancelled.delete(id);
    if (orphaned) process.exit(0);
  }
}

process.on('message', (message: ParentMessage) => {
  void handle(message);
});
process.on('disconnect', () => process.exit(0));

/**
 * Before taking jobs: starts esbuild's service, compiles the WASM module and runs a tiny
 * backtest, so V8 has compiled QuickJS's hot paths and the first real job does not pay for it.
 */
async function warmUp(): Promise<void> {
  try {
    const build = process.argv[2] === 'quickjs-ng' ? 'quickjs-ng' : DEFAULT_QUICKJS_BUILD;
    const n = 2000;
    const column = (f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));
    const candles = {
      time: column((i) => i * 60_000),
      open: column(() => 100),
      high: column((i) => 101 + (i % 3)),
      low: column((i) => 99 - (i % 2)),
      close: column((i) => 100 + (i % 5)),
      volume: column(() => 1),
    };
    await runBacktestInGuest(
      {
        source: `export function onCandle(ctx, c) { if (ctx.indicators.sma(c.symbol, 5) > ctx.indicators.sma(c.symbol, 20) && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 }); else if (ctx.position(c.symbol)) ctx.close(c.symbol); }`,
        symbols: ['WARM/UP'],
        candles: [candles],
        history: [0],
        startTime: 0,
        fees: { maker: 0, taker: 0 },
        leverage: 1,
        slippage: 0,
        initialCapital: 10_000,
        params: {},
        seed: 1,
        marketType: 'LINEAR',
        maintenanceMarginRate: 0.005,
        funding: [null],
      },
      { build, memoryLimitBytes: 64 * 1024 * 1024, stackLimitBytes: 256 * 1024, cpuTimeMs: 5000, maxLogLines: 10, maxLogBytes: 1000, maxIndicators: 8 },
      { isCancelled: () => false, onProgress() {} },
    );
  } catch {
    // A failed warm-up shows up again, as a clear error, in the first job.
  }
}

void warmUp().then(() => send({ type: 'ready', pid: process.pid }));
