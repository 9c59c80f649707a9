import { availableParallelism } from 'node:os';
import { StratboxError } from '../../errors/stratbox-error.js';
import { createProcessPool } from '../../sandbox/process-pool.js';
import { DEFAULT_QUICKJS_BUILD, type QuickJSBuild } from '../../sandbox/quickjs-variants.js';
import { SandboxError } from '../../sandbox/sandbox-error.js';
import { resolveWorkerEntry } from '../../sandbox/worker-path.js';
import { normalizeJob, type BacktestJob, type WireCandles } from './backtest-job.js';
import type { BacktestChildJob, StrategyInspection } from './backtest-worker-protocol.js';
import { buildBacktestResult, type BacktestResult } from './build-result.js';
import type { EngineLimits, RunOutput } from './run-in-guest.js';
import type { TrialOutcome, TrialsAnswer } from './run-trials-in-guest.js';
import { candleBytes } from './trial-candle-cache.js';
import { candlesKeyOf, createCandleHolders } from './trial-candle-shipping.js';
import { checkTrialWindow, type TrialWindow } from './trial-window.js';

export type { StrategyInspection } from './backtest-worker-protocol.js';
export type { TrialOutcome } from './run-trials-in-guest.js';
export type { TrialWindow } from './trial-window.js';

/** Options of `createSandboxPool`. Every limit has a default suited to a shared server. */
export interface SandboxPoolOptions {
  /**
   * Child processes for backtests, each running one at a time. Default: CPU count - 1, at least 2
   * (`defaultSandboxSize`), so that with the default `maxRunningPerTenant` a second user always
   * finds a child while one user's runs are in flight, on any machine. With 1, another user's run
   * waits for the run going (up to `cpuTimeMs`).
   */
  size?: number;
  /**
   * Child processes kept for strategy checks (`inspectStrategy`, the save-time check), so that a
   * check never waits behind a backtest. Default 1.
   */
  inspectSize?: number;
  /**
   * Backtests of one tenant (user) running at once. Tenants take turns for the free children, so
   * one tenant's many queued runs delay another's by at most one run. Default: half the
   * children, rounded up (1 of the default 2), which always leaves a child for another tenant
   * when there are at least 2; a cap of `size` or more lets one tenant hold every child.
   */
  maxRunningPerTenant?: number;
  /** QuickJS build. Default `quickjs-speed` (the fastest in bench/engine.bench.ts); `quickjs` is the release build as published. */
  build?: QuickJSBuild;
  /** QuickJS heap limit per job. Default 256 MiB. */
  memoryLimitBytes?: number;
  /** QuickJS stack limit per job. Default 256 KiB (the child's V8 stack is raised to ~3.8 MB). */
  stackLimitBytes?: number;
  /** CPU time per backtest, enforced inside the child by the interrupt handler. Default 30 s. */
  cpuTimeMs?: number;
  /**
   * Wall-clock time per backtest from its start, after which the host kills the child (a guest
   * stuck where the interrupt handler cannot reach it, or starved of CPU). Default cpuTimeMs + 15 s.
   */
  wallTimeMs?: number;
  /** Resident memory of a child, past which the host kills it. Default 1 GiB. */
  rssLimitBytes?: number;
  /** `--max-old-space-size` of a child, in MB. Default 512. */
  maxOldSpaceSizeMb?: number;
  /** Log lines and characters a run may write with `ctx.log` before it fails with LOG_LIMIT. Defaults 10,000 and 1,000,000. */
  maxLogLines?: number;
  maxLogBytes?: number;
  /** Indicator series per strategy. Default 64. */
  maxIndicators?: number;
  /** Least time between two progress reports of a run. Default 250 ms (a final report always comes). */
  progressIntervalMs?: number;
  /** After a cancel, how long the child has to stop before it is killed. Default 500 ms. */
  cancelGraceMs?: number;
  /** CPU time for evaluating a module in `inspectStrategy`. Default 1 s. */
  inspectCpuTimeMs?: number;
  /** How often the host reads a busy child's resident memory. Default 50 ms. */
  rssPollMs?: number;
  /**
   * Override the worker entry file and the Node flags it is started with (tests, bundlers): a host
   * that bundles core gives its bundle of `@stratbox/core/sandbox/worker-entry` (README, "Bundling a host app").
   */
  workerPath?: string;
  execArgv?: string[];
}

/** Progress of a run: at most a few reports per second, and always a final one. */
export interface BacktestProgress {
  processedBars: number;
  totalBars: number;
  /** processedBars / totalBars, 0..1. */
  progress: number;
}

export interface RunOptions {
  onProgress?: (progress: BacktestProgress) => void;
  /** Whose run this is (a user id): tenants take turns, see `maxRunningPerTenant`. */
  tenant?: string;
  /**
   * Platform work (a verified listing's record), not a user's: it runs only on a child no user's
   * run may take, and never makes a user's run wait (process-pool.ts, `PoolJob.background`). Default false.
   */
  background?: boolean;
  /** Aborting stops the job: a queued job at once, a running one within about a second. */
  signal?: AbortSignal;
}

export interface TrialsOptions extends Omit<RunOptions, 'onProgress'> {
  onProgress?: (trialsDone: number, trialsTotal: number) => void;
  /**
   * Run every trial over this window of the job's candles (epoch ms, `end` excluded) instead of
   * all of them: the candles opening before `end`, traded from `start` (the job's `startTime` is
   * not used), with at most `warmup` candles per symbol before `start`. A trial answers exactly
   * what `runBacktest` answers for the job's candles cut the same way, with `startTime: start`;
   * no candle at or after `end` reaches the strategy in any form.
   */
  window?: TrialWindow;
  /**
   * Each completed trial also answers `returns`: its return per period of `start + k × periodMs`
   * over the window (or, without one, from the first traded candle to the last candle's close),
   * as `periodReturns` (period-returns.ts) computes them; `periodGrid` gives the period
   * length an optimization should use. At most `MAX_TRIAL_PERIODS` periods.
   */
  periods?: { periodMs: number };
  /** Per trial (same length as the parameter sets), the seed of its `Math.random` / `ctx.random`; default: the job's `seed`. */
  seeds?: readonly number[];
  /** Each trial also answers `logs`: its last `MAX_TRIAL_LOG_LINES` log lines (for debugging a strategy's trials). */
  logs?: boolean;
  /**
   * Start each trial from a snapshot of the guest runtime evaluated once per call (default true);
   * false evaluates it afresh for every trial (the slower path, kept for comparison). Same answers.
   */
  snapshots?: boolean;
}

/** What `SandboxPool.stats` answers. */
export interface SandboxPoolStats {
  /** Children alive, with their process ids. */
  children: number;
  busy: number;
  /** Jobs waiting, both lanes together. */
  queued: number;
  pids: number[];
  /** Bytes of candle columns sent to children so far, by `runBacktest` and `runTrials` together. */
  candleBytesShipped: number;
}

/** A pool of long-lived child processes that run strategies in QuickJS. */
export interface SandboxPool {
  /**
   * Runs a backtest. Resolves with equity curve, trades and metrics in the contract's shapes;
   * rejects with a `SandboxError` whose `code` says why (TIMEOUT, MEMORY_LIMIT, STACK_OVERFLOW,
   * STRATEGY_ERROR, INVALID_STRATEGY, INVALID_PARAMS, INVALID_JOB, LOG_LIMIT, CRASHED, CANCELLED,
   * POOL_CLOSED) and whose `cpuMs` is the CPU time the run used, however it ended (a killed
   * child's is read from the system before the kill). A failed job never takes the pool down:
   * the next job runs normally.
   */
  runBacktest(job: BacktestJob, options?: RunOptions): Promise<BacktestResult>;
  /**
   * Runs `job` once per parameter set (a sweep's trials) in one child, which receives the candles
   * once and compiles the source once: each trial is a whole backtest that starts from a snapshot
   * of the guest runtime (its memory set back byte for byte; `snapshots: false`: a QuickJS runtime
   * of its own, in a WASM instance reused until a trial fails), so nothing of one trial reaches the next. Answers each trial's metrics and trade count (or its error: a failed trial
   * does not stop the others), in the order given. `onProgress` counts trials. Each trial has
   * the pool's CPU limit; the wall-clock limit is the pool's times the trials. Rejects with a
   * `SandboxError` when the whole job fails (CANCELLED, CRASHED, POOL_CLOSED, INVALID_JOB).
   * A sweep holds its child until its last trial: give it a slice of the trials at a time (a
   * second or two of work), so that tenants keep taking turns for the children (`maxRunningPerTenant`).
   * Options (see `TrialsOptions`): a `window` of the candles (walk-forward folds), period
   * `returns` per trial, a `seed` per trial, the trials' `logs`.
   *
   * The candles cross to a child once: each child keeps the candles of its last two calls (by a
   * digest of the candles, computed once per `job.candles` object, so give changed candles as a
   * new object), and a call whose candles a live child holds sends only their key. A child
   * that does not hold them (another child took the call, or it was replaced after a crash)
   * answers so, and the call is sent again with the candles: slower by a round trip, never a
   * different answer. `stats().candleBytesShipped` counts what crossed.
   */
  runTrials(job: BacktestJob, params: Record<string, string>[], options?: TrialsOptions): Promise<TrialOutcome[]>;
  /**
   * Evaluates a strategy module briefly in the sandbox and returns its validated `meta` and
   * exports. A strategy problem (syntax, no onCandle, bad meta, throwing or looping at load)
   * rejects with `StratboxError('VALIDATION_FAILED')` (400) whose details hold `{ path, message }`
   * problems (with line and column for syntax errors) and the sandbox `code`.
   */
  inspectStrategy(source: string, options?: { signal?: AbortSignal; tenant?: string; background?: boolean }): Promise<StrategyInspection>;
  /** Children currently alive (with their process ids) and jobs waiting, both lanes together. */
  stats(): SandboxPoolStats;
  /** Rejects queued and running jobs with POOL_CLOSED and stops every child. */
  close(): Promise<void>;
}

/**
 * The default count of backtest children: one per core but one (for the host and the check lane),
 * and at least 2. With the default per-tenant cap (half, rounded up) a tenant never holds every
 * child, so another tenant's run starts at once instead of after the run going. On one core the
 * two children time-share it: a run gets about half a core while another runs.
 */
export function defaultSandboxSize(cores: number = availableParallelism()): number {
  return Math.max(2, cores - 1);
}

/** The backtest child entry (backtest-worker-entry.ts), as built and published. */
const BACKTEST_WORKER = { name: 'worker-entry', source: 'backtests/engine/backtest-worker-entry.ts', option: 'sandbox: { workerPath }' };

/**
 * Creates the backtest sandbox: a process pool (sandbox/process-pool.ts) whose children run the
 * backtest child program (backtest-child-program.ts), with a lane for backtests and a lane for
 * strategy checks. Children start on demand and are reused; a job runs in a fresh QuickJS
 * runtime (and a fresh WASM instance) with memory, stack and CPU limits. The host watches every
 * busy child: past the wall-clock deadline or the resident-memory cap it kills the child and
 * starts a new one, so a guest that escapes QuickJS's own limits (a huge typed array, a long
 * native call such as `new Array(1e9).join()`) still ends in a clear error.
 */
export function createSandboxPool(options: SandboxPoolOptions = {}): SandboxPool {
  const size = Math.max(1, options.size ?? defaultSandboxSize());
  const build = options.build ?? DEFAULT_QUICKJS_BUILD;
  const cpuTimeMs = options.cpuTimeMs ?? 30_000;
  const wallTimeMs = options.wallTimeMs ?? cpuTimeMs + 15_000;
  const inspectCpuTimeMs = options.inspectCpuTimeMs ?? 1000;
  const limits: EngineLimits = {
    build,
    memoryLimitBytes: options.memoryLimitBytes ?? 256 * 1024 * 1024,
    stackLimitBytes: options.stackLimitBytes ?? 256 * 1024,
    cpuTimeMs,
    maxLogLines: options.maxLogLines ?? 10_000,
    maxLogBytes: options.maxLogBytes ?? 1_000_000,
    maxIndicators: options.maxIndicators ?? 64,
  };
  const workerPath = options.workerPath;
  const pool = createProcessPool({
    worker: () => (workerPath ? { path: workerPath, execArgv: options.execArgv ?? [] } : resolveWorkerEntry(BACKTEST_WORKER)),
    args: [build],
    // strategy checks first: a check never waits for a run
    lanes: {
      inspect: {
        size: Math.max(1, options.inspectSize ?? 1),
        // the only input of a check is the source: a child that dies on it was killed by it
        lostJob: (cpuMs) =>
          new SandboxError('INVALID_STRATEGY', 'The sandbox process died while loading the strategy; the source is too complex to load', { cpuMs }),
      },
      run: { size, maxRunningPerTenant: Math.max(1, options.maxRunningPerTenant ?? Math.ceil(size / 2)) },
    },
    rssLimitBytes: options.rssLimitBytes ?? 1024 * 1024 * 1024,
    maxOldSpaceSizeMb: options.maxOldSpaceSizeMb ?? 512,
    progressIntervalMs: options.progressIntervalMs ?? 250,
    cancelGraceMs: options.cancelGraceMs ?? 500,
    rssPollMs: options.rssPollMs ?? 50,
    cancelledMessage: 'The backtest was cancelled',
  });
  const holders = createCandleHolders();
  let candleBytesShipped = 0;
  /** Counts candles about to be sent to a child. */
  const shipped = (candles: WireCandles[]): WireCandles[] => {
    candleBytesShipped += candleBytes(candles);
    return candles;
  };

  return {
    async runBacktest(job, runOptions = {}) {
      const wire = normalizeJob(job);
      shipped(wire.candles);
      const { onProgress } = runOptions;
      const answer = await pool.run({
        lane: 'run',
        tenant: runOptions.tenant,
        background: runOptions.background,
        payload: { kind: 'run', job: wire, limits } satisfies BacktestChildJob,
        wallTimeMs,
        signal: runOptions.signal,
        onProgress: onProgress ? (done, total) => onProgress({ processedBars: done, totalBars: total, progress: total > 0 ? done / total : 1 }) : undefined,
      });
      try {
        return buildBacktestResult(answer.output as RunOutput, wire, { wallMs: answer.wallMs, peakRssBytes: answer.peakRssBytes, build });
      } catch (error) {
        throw new SandboxError('CRASHED', `Could not read the result: ${(error as Error).message}`);
      }
    },

    async runTrials(job, params, trialOptions = {}) {
      if (params.length === 0) return [];
      const wire = normalizeJob(job);
      const { window, periods, seeds } = trialOptions;
      checkTrialWindow(wire, window, periods?.periodMs);
      if (seeds !== undefined && (seeds.length !== params.length || !seeds.every((s) => Number.isInteger(s) && s >= 0 && s <= 2 ** 32 - 1))) {
        throw new SandboxError('INVALID_JOB', 'seeds: one whole number from 0 to 4294967295 per parameter set');
      }
      // The child cuts the candles to the window (and finds the history) itself.
      const { candles, history: _history, ...rest } = wire;
      const key = candlesKeyOf(job, rest.symbols, candles);
      const send = async (ship: boolean) => {
        const payload = {
          kind: 'trials',
          job: rest,
          candles: { key, columns: ship ? shipped(candles) : null },
          params,
          limits,
          seeds: seeds ?? null,
          window: window ?? null,
          periodMs: periods?.periodMs ?? null,
          logs: trialOptions.logs ?? false,
          snapshots: trialOptions.snapshots ?? true,
        } satisfies BacktestChildJob;
        const { output } = await pool.run({
          lane: 'run',
          tenant: trialOptions.tenant,
          background: trialOptions.background,
          payload,
          wallTimeMs: wallTimeMs * params.length,
          signal: trialOptions.signal,
          onProgress: trialOptions.onProgress,
        });
        const answer = output as TrialsAnswer;
        holders.record(answer.pid, answer.held);
        return answer;
      };
      let answer = await send(!holders.heldByLiveChild(key, pool.stats().pids));
      if (answer.missing) answer = await send(true);
      if (answer.missing) throw new SandboxError('CRASHED', 'The sandbox process lost the candles it was sent');
      return answer.outcomes;
    },

    async inspectStrategy(source, inspectOptions = {}) {
      try {
        const answer = await pool.run({
          lane: 'inspect',
          tenant: inspectOptions.tenant,
          background: inspectOptions.background,
          payload: { kind: 'inspect', source, limits: { ...limits, cpuTimeMs: inspectCpuTimeMs } } satisfies BacktestChildJob,
          wallTimeMs: inspectCpuTimeMs * 2 + 2000,
          signal: inspectOptions.signal,
        });
        return answer.output as StrategyInspection;
      } catch (error) {
        if (!(error instanceof SandboxError) || ['CRASHED', 'CANCELLED', 'POOL_CLOSED'].includes(error.code)) throw error;
        const at = (error.details ?? {}) as { line?: number; column?: number };
        const problems = Array.isArray(error.details)
          ? (error.details as object[])
          : [{ path: 'source', message: error.message, ...(at.line ? { line: at.line, column: at.column } : {}) }];
        throw new StratboxError(
          'VALIDATION_FAILED',
          error.message,
          problems.map((p) => ({ ...p, code: error.code })),
        );
      }
    },

    stats: () => ({ ...pool.stats(), candleBytesShipped }),
    close: () => pool.close(),
  };
}
