import type { BacktestDetail } from '@stratbox/contract';
import type { CandleSeries } from './market-data.js';
import type { ReplayOrder } from '../drift/drift-types.js';
import type { BacktestResultRecord } from './store.js';

/**
 * What a strategy declares about itself in `export const meta`, as far as running it goes: its
 * timeframe, the candles it needs before the first traded one (`warmup`), and its parameter
 * specs (`params`, by name: `{ type: 'int', default: 10, min: 1 }`, ...). Each is absent when
 * the strategy does not declare it.
 */
export interface StrategyDeclaration {
  timeframe?: string | undefined;
  /** Higher timeframes the strategy reads (`meta.timeframes`). */
  timeframes?: string[] | undefined;
  warmup?: number | undefined;
  params?: Record<string, unknown> | undefined;
}

export interface BacktestRunInput {
  /** The stored strategy source (TypeScript or JavaScript). */
  source: string;
  /** One series per symbol, same timeframe. Candles before `startTime` only warm up indicators. */
  series: CandleSeries[];
  /** First candle time (ms) that is traded and marked. Default: the first candle. */
  startTime?: number;
  fees: { maker: number; taker: number };
  leverage: number;
  slippage: number;
  initialCapital: number;
  /** Request params (strings), parsed against `meta.params` by the runner. */
  params: Record<string, string>;
  marketType: 'LINEAR' | 'SPOT';
  /** Seeds the guest's PRNG, so a run can be repeated exactly. */
  seed: number;
  /**
   * Funding events per symbol (LINEAR only): at each `time` (epoch ms, strictly ascending) an
   * open position pays its notional times `rate`. A symbol without an entry pays no funding.
   * Default: none.
   */
  funding?: Record<string, { time: Float64Array; rate: Float64Array }>;
  /**
   * Keep the order journal: the output's `journal` then lists every order the run placed, with
   * its outcome (docs/engine.md, "The order journal"). Default false: no journal, no cost.
   */
  journal?: boolean;
}

/** A line the strategy wrote with `ctx.log` (or `console`), in the order written. */
export interface StrategyLogLine {
  /** The candle time (epoch ms) at which it was written. */
  time: number;
  /** Absent: `info`. */
  level?: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

export interface BacktestRunOutput extends Omit<BacktestResultRecord, 'backtestId' | 'tradeCount'> {
  /** CPU milliseconds of sandboxed execution. */
  computeMs: number;
  /**
   * The lines the strategy wrote, in order, within the runner's log limit (a run that writes
   * more fails with LOG_LIMIT). Absent: the runner keeps none.
   */
  logs?: StrategyLogLine[];
  /**
   * Only when the input asked for it (`journal: true`): every order the strategy placed, and
   * every close the engine made on its own (`type` stopLoss, takeProfit, trailingStop,
   * liquidation, end; `source` 'order'; ids `x1`, `x2`...), in placement order, with its
   * outcome. `candleTime` is the open time of the candle being processed when it was placed;
   * `fillTime` that of the candle it filled on; `fillPrice` is after slippage; orders still
   * pending at the end are `open`.
   */
  journal?: ReplayOrder[];
  /** With `journal`: true when the run placed more orders than the journal keeps (200,000); the first ones are listed. */
  journalTruncated?: boolean;
  /**
   * With `journal`: the equity at every candle close (one point per distinct candle time), not
   * downsampled as `equityCurve` is, for a comparison that needs the equity at given candles.
   */
  equitySeries?: { times: Float64Array; equity: Float64Array };
}

/** What every trial of a sweep shares: a backtest's input without its params and seed, plus the window. */
export interface TrialsRunInput extends Omit<BacktestRunInput, 'params' | 'seed' | 'startTime'> {
  /**
   * The window the trials run over: candles with open time before `end`, traded from `start`,
   * with at most `warmup` candles per symbol before `start`. No candle at or after `end` is ever
   * visible to the strategy.
   */
  window: { start: number; end: number; warmup: number };
  /** Each completed trial answers its returns per period of `start + k × periodMs` over the window. */
  periodMs: number;
}

/** One trial of a sweep: its params (strings, as a backtest takes them) and the seed of its PRNG. */
export interface TrialRunRequest {
  params: Record<string, string>;
  seed: number;
}

/** A run's metrics, as the contract's `Metrics` types them: the whole run's and per symbol. */
export type RunMetrics = NonNullable<BacktestDetail['metrics']>;

/** What one trial answered. */
export type TrialRunOutcome =
  | { ok: true; metrics: RunMetrics; returns: Float64Array; cpuMs: number }
  | { ok: false; error: { code: string; message: string }; cpuMs: number };

/** Who a run or check is for, so that users take turns for the sandbox. */
export interface TenantOption {
  /** The user id; runs of different users take turns, and each user has a cap on runs at once. */
  tenant?: string;
  /**
   * Platform work (verified listings' records), not a user's: it runs only on sandbox capacity
   * that no user's call may use at that moment, and never makes a user's call wait. Default false.
   */
  background?: boolean;
}

/**
 * The StrategyRunner port: runs user strategy code in the sandbox, for backtests and to check a
 * strategy before it is saved, backtested or deployed (its `meta` and params). Implementation:
 * `createSandboxStrategyRunner` (QuickJS in a pool of child processes). A live deployment's
 * long-lived session runs in the deployments' own sandbox (`createLiveSandbox`) instead.
 *
 * Guarantees every implementation gives:
 * - Isolation: strategy code never runs in the host's V8 and cannot reach the host (no
 *   `require`, filesystem, network or timers); whatever it does (throw, loop, allocate), the
 *   host survives and the next call runs normally.
 * - Failures of `run` reject with an error that has a string `code` (TIMEOUT, MEMORY_LIMIT,
 *   STACK_OVERFLOW, STRATEGY_ERROR, INVALID_STRATEGY, INVALID_PARAMS, LOG_LIMIT, CRASHED,
 *   CANCELLED, POOL_CLOSED, ...), a message written for the strategy's author, and `cpuMs`: the
 *   CPU time the run used before it ended, however it ended (for usage metering); and, when
 *   they could be saved, `logs`: the `StrategyLogLine`s the strategy wrote before it failed.
 * - Determinism: the same input, with the same `seed`, gives the same output.
 * - Fairness: calls with different `tenant`s take turns; a check never waits behind a run; a
 *   user's call never waits behind `background` work, which runs on what users leave idle.
 * - `close` rejects waiting and running calls (POOL_CLOSED) and releases every process; later
 *   calls reject the same way. Safe to call twice.
 */
export interface StrategyRunner {
  /**
   * Evaluates the strategy module briefly (never `onCandle`) and answers what it declares.
   * Rejects with StratboxError VALIDATION_FAILED (400) for an invalid strategy (syntax, no
   * `onCandle`, a bad `meta`, throwing or looping while loading): its details are `{ path,
   * message, code }` problems, with line and column for a syntax error.
   */
  inspect(source: string, options?: TenantOption): Promise<StrategyDeclaration>;
  /** Throws StratboxError VALIDATION_FAILED (400) when `params` do not match `declaration.params`. */
  checkParams(declaration: StrategyDeclaration, params: Record<string, string>): void;
  /**
   * Runs a backtest of `input.source` over `input.series`. Reports progress through `onProgress`
   * (bars done of the total) and rejects with CANCELLED soon after `signal` aborts.
   */
  run(
    input: BacktestRunInput,
    options: TenantOption & { signal: AbortSignal; onProgress: (processedBars: number, totalBars: number) => void },
  ): Promise<BacktestRunOutput>;
  /**
   * Runs the strategy once per trial over the same candles (a sweep): each trial is a whole
   * backtest with its own fresh strategy state, answering its metrics and per-period returns, or
   * why it failed (a failed trial does not stop the others), in the order given. Rejects with
   * CANCELLED soon after `signal` aborts, with `cpuMs` on the error. A call holds a sandbox until
   * its last trial: give it a second or two of work at a time.
   */
  runTrials(input: TrialsRunInput, trials: readonly TrialRunRequest[], options: TenantOption & { signal: AbortSignal }): Promise<TrialRunOutcome[]>;
  close(): Promise<void>;
}
