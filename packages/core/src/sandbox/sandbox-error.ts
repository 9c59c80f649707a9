/**
 * Why a sandboxed run ended without a result. Every failure of the engine carries one:
 * - `TIMEOUT`: the CPU-time deadline (or the host's wall-clock watchdog) was reached.
 * - `MEMORY_LIMIT`: the QuickJS heap limit, or the child's resident-memory cap, was reached.
 * - `STACK_OVERFLOW`: recursion went past the stack limit.
 * - `STRATEGY_ERROR`: the strategy threw (anything, even `throw 42`), or misused the API.
 * - `INVALID_STRATEGY`: the source does not compile, or lacks `onCandle` or a valid `meta`.
 * - `INVALID_PARAMS`: a parameter does not match `meta.params`.
 * - `INVALID_JOB`: the job itself is malformed (candles out of order, bad numbers...).
 * - `LOG_LIMIT`: the strategy wrote more than the allowed log lines or bytes.
 * - `CRASHED`: the child process died (killed, crashed) while running the job.
 * - `CANCELLED`: the caller aborted the job.
 * - `POOL_CLOSED`: the pool was closed before the job ran.
 */
export type SandboxErrorCode =
  | 'TIMEOUT'
  | 'MEMORY_LIMIT'
  | 'STACK_OVERFLOW'
  | 'STRATEGY_ERROR'
  | 'INVALID_STRATEGY'
  | 'INVALID_PARAMS'
  | 'INVALID_JOB'
  | 'LOG_LIMIT'
  | 'CRASHED'
  | 'CANCELLED'
  | 'POOL_CLOSED';

/** A log line written by a strategy with `ctx.log`. `time` is the candle time (ms) when it was written. */
export interface GuestLogLine {
  time: number;
  /** `ctx.log` and `console.log` write `info`; `console.debug`, `console.warn` and `console.error` their own. Absent: info. */
  level?: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/**
 * The one error class the sandbox rejects with. `message` is written for the strategy's author
 * and is safe to show them; `details` carries structured data (line and column, problems).
 */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  readonly code: SandboxErrorCode;
  readonly details: unknown;
  /** Log lines the strategy wrote before it failed, when they could be saved. */
  readonly logs: GuestLogLine[];
  /**
   * CPU milliseconds the job used before it failed (for usage metering). When the host had to
   * kill the child, the job's wall-clock time, an upper bound.
   */
  readonly cpuMs: number;

  constructor(code: SandboxErrorCode, message: string, options: { details?: unknown; logs?: GuestLogLine[]; cpuMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.logs = options.logs ?? [];
    this.cpuMs = options.cpuMs ?? 0;
  }

  /** The `{ code, message }` a backtest record stores as its error. */
  toRunError(): { code: string; message: string } {
    return { code: this.code, message: this.message };
  }
}

export function isSandboxError(error: unknown): error is SandboxError {
  return error instanceof SandboxError;
}
