import type { StrategyMeta } from '../../sandbox/strategy-meta.js';
import type { GuestLimits } from './backtest-session.js';
import type { WireJob } from './backtest-job.js';
import type { EngineLimits } from './run-in-guest.js';
import type { TrialsChildJob } from './run-trials-in-guest.js';

/** What `pool.inspectStrategy` learns by evaluating a strategy module briefly in the sandbox: its validated `meta` and its exports. */
export interface StrategyInspection {
  meta: StrategyMeta;
  /** Exported names with their `typeof`, e.g. `{ onCandle: 'function', meta: 'object' }`. */
  exports: Record<string, string>;
}

/**
 * A job of the backtest sandbox children (backtest-child-program.ts), the opaque payload of the
 * process pool. A `run` answers a `RunOutput` (run-in-guest.ts), `trials` a `TrialsAnswer`
 * (run-trials-in-guest.ts), an `inspect` a `StrategyInspection`.
 */
export type BacktestChildJob = { kind: 'run'; job: WireJob; limits: EngineLimits } | TrialsChildJob | { kind: 'inspect'; source: string; limits: GuestLimits };
