/**
 * Entry of a sandbox child process (forked by `createSandboxPool`). Runs one job at a time:
 * each in a fresh QuickJS instance and runtime. Never imported by the host.
 */
import { runBacktestInGuest } from '../backtests/engine/run-in-guest.js';
import { inspectStrategyInGuest } from './inspect-strategy.js';
import { DEFAULT_QUICKJS_BUILD, newQuickJSInstance } from './quickjs-variants.js';
import { SandboxError } from './sandbox-error.js';
import { compileStrategySource } from './strategy-source.js';
import type { ChildMessage, ParentMessage } from './worker-protocol.js';

const cancelled = new Set<number>();
let current: number | null = null;

function send(message: ChildMessage): void {
  process.send?.(message);
}

function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

function fail(id: number, error: unknown): void {
  const e =
    error instanceof SandboxError
      ? error
      : new SandboxError('CRASHED', `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`);
  const recycle = !(error instanceof SandboxError) || e.code === 'STACK_OVERFLOW' || e.code === 'MEMORY_LIMIT' || e.code === 'CRASHED';
  send({ type: 'error', id, code: e.code, message: e.message, details: e.details ?? null, logs: e.logs, recycle });
}

async function handle(message: ParentMessage): Promise<void> {
  if (message.type === 'cancel') {
    if (message.id === current) cancelled.add(message.id);
    return;
  }
  const { id } = message;
  current = id;
  const isCancelled = () => cancelled.has(id);
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
  }
}

process.on('message', (message: ParentMessage) => {
  void handle(message);
});
process.on('disconnect', () => process.exit(0));

/** Compiles the WASM module and starts esbuild once, so the first job does not pay for them. */
async function warmUp(): Promise<void> {
  try {
    compileStrategySource('export function onCandle() {}');
    const build = process.argv[2] === 'quickjs-ng' ? 'quickjs-ng' : DEFAULT_QUICKJS_BUILD;
    (await newQuickJSInstance(build)).newContext().dispose();
  } catch {
    // A failed warm-up shows up again, as a clear error, in the first job.
  }
}

void warmUp().then(() => send({ type: 'ready', pid: process.pid }));
