import type { WireJob } from '../backtests/engine/backtest-job.js';
import type { GuestLimits } from '../backtests/engine/backtest-session.js';
import type { EngineLimits, RunOutput } from '../backtests/engine/run-in-guest.js';
import type { GuestLogLine, SandboxErrorCode } from './sandbox-error.js';
import type { StrategyMeta } from './strategy-meta.js';

/** What `pool.inspectStrategy` learns by evaluating a strategy module briefly in the sandbox. */
export interface StrategyInfo {
  meta: StrategyMeta;
  /** Exported names with their `typeof`, e.g. `{ onCandle: 'function', meta: 'object' }`. */
  exports: Record<string, string>;
}

/** Messages from the pool to a child. */
export type ParentMessage =
  | { type: 'run'; id: number; job: WireJob; limits: EngineLimits; progressIntervalMs: number }
  | { type: 'inspect'; id: number; source: string; limits: GuestLimits }
  | { type: 'cancel'; id: number };

/** Messages from a child to the pool. `recycle` asks the pool to replace the child after this job. */
export type ChildMessage =
  | { type: 'ready'; pid: number }
  | { type: 'progress'; id: number; processed: number; total: number }
  | { type: 'result'; id: number; output: RunOutput; peakRssBytes: number; recycle: boolean }
  | { type: 'inspected'; id: number; info: StrategyInfo; recycle: boolean }
  | { type: 'error'; id: number; code: SandboxErrorCode; message: string; details: unknown; logs: GuestLogLine[]; cpuMs: number; recycle: boolean };
