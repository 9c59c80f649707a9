import { guestScript } from '../../engine/guest-script.js';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { openQuickJsSession, type QuickJsLimits, type QuickJsSession } from '../../sandbox/quickjs-session.js';

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
}

/**
 * Opens one backtest's QuickJS session (see quickjs-session.ts): the backtest guest runtime,
 * one CPU budget for the whole job. Rejects with a `SandboxError`.
 */
export async function openBacktestSession(options: BacktestSessionOptions): Promise<GuestSession> {
  const { limits } = options;
  return openQuickJsSession({
    limits: { build: limits.build, memoryLimitBytes: limits.memoryLimitBytes, stackLimitBytes: limits.stackLimitBytes },
    cpu: { timeMs: limits.cpuTimeMs, per: 'session' },
    runtime: {
      script: await guestScript('backtest-runtime'),
      filename: 'stratbox-runtime.js',
      boot: { seed: options.seed >>> 0, startTime: options.startTime, maxLogLines: limits.maxLogLines, maxLogBytes: limits.maxLogBytes },
      functions: BACKTEST_RUNTIME_FUNCTIONS,
    },
    isCancelled: options.isCancelled,
    cancelledMessage: 'The backtest was cancelled',
    wasm: options.wasm,
  });
}
