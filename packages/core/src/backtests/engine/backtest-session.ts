import { guestScript } from '../../engine/guest-script.js';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { openQuickJsSession, type QuickJsLimits, type QuickJsSession } from '../../sandbox/quickjs-session.js';
import { createQuickJsWarmStart, type QuickJsWarmStart, type WarmSession } from '../../sandbox/quickjs-warm-start.js';

/** Limits of one backtest's QuickJS session. */
export interface GuestLimits extends QuickJsLimits {
  /** CPU time the whole job may use, enforced by the interrupt handler. */
  cpuTimeMs: number;
  maxLogLines: number;
  maxLogBytes: number;
}

/** The functions of the backtest guest runtime (engine/guest/backtest-runtime.ts) the engine calls. */
const BACKTEST_RUNTIME_FUNCTIONS = [
  'readMeta',
  'readExports',
  'start',
  'runBatch',
  'drainStates',
  'drainTrades',
  'drainJournal',
  'journalInfo',
  'drainLogs',
  'finish',
  'lastError',
  'describe',
] as const;

export type BacktestRuntimeFn = (typeof BACKTEST_RUNTIME_FUNCTIONS)[number];

/** A QuickJS session with the backtest guest runtime loaded. */
export type GuestSession = QuickJsSession<BacktestRuntimeFn>;

export interface BacktestSessionOptions {
  limits: GuestLimits;
  seed: number;
  /** What `Date.now()` answers before the first candle. */
  startTime: number;
  /** Polled by the interrupt handler; true stops the guest with CANCELLED. */
  isCancelled: () => boolean;
  /** A WASM instance to reuse (a sweep's trials, see quickjs-session.ts); by default a fresh one. */
  wasm?: QuickJSWASMModule;
  /** A warm start to open the session from (a sweep's trials, see quickjs-warm-start.ts); `wasm` is then not used. */
  warm?: BacktestWarmStart;
  /**
   * With `warm`: names what the caller loads after opening (the strategy's source); with the boot
   * value it is the warm start's `loadKey`, so sessions that load the same strategy under the same
   * seed and clock may start with it loaded (`WarmSession.loaded`).
   */
  loadKey?: string;
}

/** Backtest sessions that start from a snapshot of the backtest guest runtime, evaluated once. */
export type BacktestWarmStart = QuickJsWarmStart<BacktestRuntimeFn>;

/** A backtest session opened from a warm start. */
export type WarmGuestSession = WarmSession<BacktestRuntimeFn>;

/** A warm start of the backtest guest runtime under `limits` (memory, stack); see quickjs-warm-start.ts. */
export async function createBacktestWarmStart(limits: GuestLimits): Promise<BacktestWarmStart> {
  return createQuickJsWarmStart({
    limits: { build: limits.build, memoryLimitBytes: limits.memoryLimitBytes, stackLimitBytes: limits.stackLimitBytes },
    runtime: { script: await guestScript('backtest-runtime'), filename: RUNTIME_FILENAME, functions: BACKTEST_RUNTIME_FUNCTIONS },
  });
}

const RUNTIME_FILENAME = 'stratbox-runtime.js';

function bootOf(options: BacktestSessionOptions) {
  const { limits } = options;
  return { seed: options.seed >>> 0, startTime: options.startTime, maxLogLines: limits.maxLogLines, maxLogBytes: limits.maxLogBytes };
}

/**
 * Opens one backtest's QuickJS session (see quickjs-session.ts): the backtest guest runtime,
 * one CPU budget for the whole job; from `warm` when given. Rejects with a `SandboxError`.
 */
export async function openBacktestSession(options: BacktestSessionOptions): Promise<GuestSession | WarmGuestSession> {
  const { limits } = options;
  const cpu = { timeMs: limits.cpuTimeMs, per: 'session' } as const;
  const cancelledMessage = 'The backtest was cancelled';
  if (options.warm) {
    const boot = bootOf(options);
    const loadKey = options.loadKey === undefined ? undefined : `${JSON.stringify(boot)}\n${options.loadKey}`;
    return options.warm.open({ cpu, boot, isCancelled: options.isCancelled, cancelledMessage, loadKey });
  }
  return openQuickJsSession({
    limits: { build: limits.build, memoryLimitBytes: limits.memoryLimitBytes, stackLimitBytes: limits.stackLimitBytes },
    cpu,
    runtime: { script: await guestScript('backtest-runtime'), filename: RUNTIME_FILENAME, boot: bootOf(options), functions: BACKTEST_RUNTIME_FUNCTIONS },
    isCancelled: options.isCancelled,
    cancelledMessage,
    wasm: options.wasm,
  });
}
