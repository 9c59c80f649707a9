import { isStratboxError } from '../errors/stratbox-error.js';

/** CPU milliseconds a failed run used, as the strategy runner reported it on the error. */
export function cpuMsOf(error: unknown): number {
  const cpuMs = (error as { cpuMs?: unknown } | null)?.cpuMs;
  return typeof cpuMs === 'number' && Number.isFinite(cpuMs) && cpuMs > 0 ? cpuMs : 0;
}

/** Errors whose message speaks of data, not of the strategy: a buyer may read them. */
const DATA_ERRORS = ['DATA_NOT_FOUND', 'WARMUP_DATA_MISSING'];

function runError(error: unknown): { code: string; message: string } {
  if (isStratboxError(error)) return { code: error.code === 'NOT_FOUND' ? 'DATA_NOT_FOUND' : error.code, message: error.message };
  const coded = error as { code?: unknown; message?: unknown };
  if (error instanceof Error && typeof coded.code === 'string') return { code: coded.code, message: error.message };
  return { code: 'INTERNAL', message: 'The run failed unexpectedly' };
}

/**
 * The `{ code, message }` a failed run (backtest, trial, optimization) records. A bought
 * strategy's failure must not quote its code (run-only licence): unless the owner ran it, or the
 * error speaks of data or of the request, only the code is kept.
 */
export function runErrorFor(error: unknown, ownsSource: boolean): { code: string; message: string } {
  const code = (error as { code?: string } | null)?.code ?? '';
  if (ownsSource || DATA_ERRORS.includes(code) || isStratboxError(error)) return runError(error);
  return { code: runError(error).code, message: 'The purchased strategy failed; its author can see why' };
}
