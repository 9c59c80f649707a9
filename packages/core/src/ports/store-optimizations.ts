import type { OptimizationResults, OptimizationStatus, OptimizationTrial } from '@stratbox/contract';
import type { ListPosition, PageRequest } from './store.js';

/**
 * What an optimization was asked to do, as the service parsed and checked it (the create body
 * with its defaults filled in and the strategy's market type and timeframe resolved). Stored as
 * given and read back equal.
 */
export interface OptimizationSpec {
  symbols: string[];
  startDate: string;
  endDate: string;
  timeframe: string;
  marketType: 'LINEAR' | 'SPOT';
  fees: { maker: number; taker: number };
  leverage: number;
  slippage: number;
  initialCapital: number;
  /** Parameters fixed for every trial. */
  params: Record<string, string>;
  /** Whether trials pay funding (asked for, and LINEAR). */
  funding: boolean;
  searchSpace: Record<string, { values: Array<number | string | boolean> } | { min: number; max: number; step: number }>;
  method: { kind: 'grid' } | { kind: 'random'; count: number; seed: number };
  objective: string;
  constraints: { minTrades?: number | undefined; maxDrawdown?: number | undefined };
  validation:
    | { kind: 'none' }
    | { kind: 'holdout'; fraction: number }
    | { kind: 'walk-forward'; folds: number; mode: 'rolling' | 'anchored'; inSampleFraction: number };
}

/**
 * A trial's metrics, the type of the contract's `TrialMetrics` schema: a backtest's metrics without the
 * per-symbol breakdown. Stored as JSON and read back equal.
 */
export type TrialMetricValues = NonNullable<OptimizationTrial['metrics']>;

/** The best trial so far, as the optimization record keeps it. */
export interface OptimizationBestRecord {
  index: number;
  fold: number | null;
  params: Record<string, string>;
  objective: number;
  metrics: TrialMetricValues;
  /** The full backtest of these parameters, once the optimization completed and queued it. */
  backtestId: string | null;
}

export interface OptimizationRecord {
  id: string;
  userId: string;
  strategyId: string;
  strategyVersion: number;
  status: OptimizationStatus;
  /** 0..1 */
  progress: number;
  /** Trials stored (each counted once, however often a crash made a worker redo it). */
  trialsDone: number;
  trialsTotal: number;
  spec: OptimizationSpec;
  best: OptimizationBestRecord | null;
  /** CPU milliseconds of sandboxed execution metered so far. */
  computeMs: number;
  /** How many times a worker started this optimization. */
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: { code: string; message: string } | null;
}

/** Fields a worker or the service may change on an optimization. */
export type OptimizationPatch = Partial<
  Pick<OptimizationRecord, 'status' | 'progress' | 'trialsDone' | 'best' | 'computeMs' | 'attempts' | 'startedAt' | 'finishedAt' | 'error'>
>;

/** One trial of an optimization: one parameter set over one in-sample window. */
export interface OptimizationTrialRecord {
  optimizationId: string;
  /** Unique within the optimization: fold × (trials per fold) + the combination's index. */
  index: number;
  /** The validation fold it belongs to; null without validation. */
  fold: number | null;
  /** Every parameter it ran with (fixed and searched), as strings. */
  params: Record<string, string>;
  status: 'completed' | 'failed';
  /** The objective metric; null when failed or undefined. */
  objective: number | null;
  /** Completed, objective defined and every constraint met. */
  feasible: boolean;
  /** Null when failed. */
  metrics: TrialMetricValues | null;
  error: { code: string; message: string } | null;
  /** CPU milliseconds the trial used. */
  cpuMs: number;
  /**
   * The trial's returns per period of the optimization's period grid (for the Deflated Sharpe
   * Ratio and PBO); null when failed. Read back with the same values, bit for bit.
   */
  returns: Float64Array | null;
}

/** A trial as listed to its owner: everything but the returns. */
export type OptimizationTrialView = Omit<OptimizationTrialRecord, 'returns'>;

/**
 * Optimizations and their trials. Besides the Store's guarantees (scoping by `userId`, null or
 * false for not found, newest-first lists):
 * - `transition` is a compare-and-set on `status`, as for backtests: of concurrent calls from the
 *   same status exactly one wins.
 * - `saveTrials` is insert-if-absent by (optimizationId, index): a trial already stored stays as it
 *   is, and the call answers only the indexes it newly stored, so a worker that redoes trials
 *   after a crash (or runs beside a stalled twin) counts and meters each trial once.
 */
export interface OptimizationRepository {
  insert(optimization: OptimizationRecord): Promise<void>;
  findById(userId: string, id: string): Promise<OptimizationRecord | null>;
  /** Newest first, optionally of one strategy and/or status. */
  list(userId: string, page: PageRequest, filter?: { strategyId?: string; status?: OptimizationStatus }): Promise<OptimizationRecord[]>;
  /** Applies `patch` if the status is one of `from`; answers the record after, or null (not scoped: workers call it). */
  transition(id: string, from: readonly OptimizationStatus[], patch: OptimizationPatch): Promise<OptimizationRecord | null>;
  /** Optimizations in one of `statuses`, oldest first, at most `limit`, after `after` (all users: start-up recovery). */
  listByStatus(statuses: readonly OptimizationStatus[], limit: number, after?: ListPosition): Promise<OptimizationRecord[]>;
  /** Stores the trials not stored yet (see above); answers the indexes newly stored. */
  saveTrials(trials: readonly OptimizationTrialRecord[]): Promise<number[]>;
  /** Trials stored for the optimization. */
  countTrials(optimizationId: string): Promise<number>;
  /**
   * The sum of `trialsDone` over the user's optimizations of the strategy (any version, any
   * status) created strictly before `before`: the trials a verification record counts as search
   * effort. 0 when there are none (or for another user's strategy).
   */
  sumTrialsForStrategy(userId: string, strategyId: string, before: string): Promise<number>;
  /**
   * The stored trials with `from <= index < to`, by index, with their CPU time only (not scoped:
   * workers call it): which trials of a slice are stored, and what they cost.
   */
  listTrialCosts(optimizationId: string, range: { from: number; to: number }): Promise<Array<{ index: number; cpuMs: number }>>;
  /** Every stored trial of the optimization with its returns, by index (not scoped: workers call it). */
  listAllTrials(optimizationId: string): Promise<OptimizationTrialRecord[]>;
  /**
   * A page of the owner's trials: `objective` order is feasible first, then objective descending,
   * then index; `index` order is by index. `offset` rows are skipped. Empty for another user's.
   */
  listTrials(
    userId: string,
    optimizationId: string,
    options: { sort: 'objective' | 'index'; fold?: number; offset: number; limit: number },
  ): Promise<OptimizationTrialView[]>;
  /** Stores the results of a completed optimization (as JSON), replacing earlier ones. */
  saveResult(optimizationId: string, results: OptimizationResults): Promise<void>;
  /** The stored results, read back equal; or null (none yet, or another user's). */
  getResult(userId: string, optimizationId: string): Promise<OptimizationResults | null>;
  /** Deletes the optimization, its trials and results (when its strategy is deleted); false if none. */
  delete(userId: string, id: string): Promise<boolean>;
}
