import type { SandboxErrorCode } from '../sandbox/sandbox-error.js';
import type { LiveAccountState, LiveCallResult, LiveCandle, LiveLimits, LiveOpenInput, LiveOrderEvent } from './live-session.js';
import type { ParamValue, StrategyMeta } from '../sandbox/strategy-meta.js';

/** Messages from the host (`createLiveSandbox`) to a live child. One session per child. */
export type LiveParentMessage =
  | { type: 'open'; id: number; input: LiveOpenInput; limits: LiveLimits }
  | { type: 'history'; id: number; candles: LiveCandle[] }
  | { type: 'candle'; id: number; candle: LiveCandle; state: LiveAccountState }
  | { type: 'order'; id: number; event: LiveOrderEvent; state: LiveAccountState };

/** Messages from a live child to the host. */
export type LiveChildMessage =
  | { type: 'ready'; pid: number }
  | { type: 'opened'; id: number; meta: StrategyMeta; params: Record<string, ParamValue> }
  | { type: 'done'; id: number; result: LiveCallResult | null }
  | { type: 'error'; id: number; code: SandboxErrorCode; message: string; details: unknown };
