import { TRADE_FIELDS } from '../../engine/model/codes.js';
import { wasmHeapCap } from '../../sandbox/quickjs-session.js';
import { newQuickJSInstance } from '../../sandbox/quickjs-variants.js';
import { type GuestLogLine, SandboxError, type SandboxErrorCode } from '../../sandbox/sandbox-error.js';
import type { ParamValue } from '../../sandbox/strategy-meta.js';
import { type CompiledStrategy, compileStrategySourceAsync } from '../../sandbox/strategy-source.js';
import type { WireCandles, WireJob } from './backtest-job.js';
import type { BacktestMetrics } from './metrics.js';
import { periodReturns } from './period-returns.js';
import { type BacktestWarmStart, createBacktestWarmStart } from './backtest-session.js';
import { createSeriesCache, type EngineLimits, type RunHooks, runBacktestInGuest } from './run-in-guest.js';
import type { TrialCandleCache } from './trial-candle-cache.js';
import { type TrialWindow, trialGrid, windowJob } from './trial-window.js';

/** A trial's first batch of candles: a year of `1h` in one crossing into the guest. */
const TRIAL_FIRST_BATCH = 16_384;

/** The most log lines one trial answers with `logs: true`: its last ones. */
export const MAX_TRIAL_LOG_LINES = 1000;

/**
 * What one trial of a sweep answered: the parameters it ran with (parsed) and its metrics, or why
 * it failed. `returns`: its return per period, when the call asked for them; `logs`: its last
 * `MAX_TRIAL_LOG_LINES` log lines, when the call asked for them.
 */
export type TrialOutcome =
  | {
      params: Record<string, string>;
      ok: true;
      used: Record<string, ParamValue>;
      metrics: BacktestMetrics;
      trades: number;
      cpuMs: number;
      returns?: Float64Array;
      logs?: GuestLogLine[];
    }
  | { params: Record<string, string>; ok: false; error: { code: SandboxErrorCode; message: string }; cpuMs: number; logs?: GuestLogLine[] };

/** What the trials of one call share besides the job: see `SandboxPool.runTrials`. */
export interface TrialsInGuestOptions {
  /** Per trial, the seed of its random (default: the job's). */
  seeds?: readonly number[] | null;
  /** With a period length: each completed trial answers its period returns over this window (or the whole run without one). */
  periodMs?: number | null;
  window?: TrialWindow | null;
  /** Answer each trial's last log lines. */
  logs?: boolean;
  /**
   * Start each trial from a snapshot of the guest runtime, evaluated once (quickjs-warm-start.ts;
   * default true), instead of evaluating it in a fresh QuickJS runtime per trial. Same answers.
   */
  snapshots?: boolean;
}

/**
 * A `runTrials` call as its child receives it: the job without its candles, which come in
 * `candles.columns` (all of them, in symbol order), or, when null, from the child's cache by key.
 */
export interface TrialsChildJob extends Required<TrialsInGuestOptions> {
  kind: 'trials';
  job: Omit<WireJob, 'candles' | 'history'>;
  candles: { key: string; columns: WireCandles[] | null };
  params: Record<string, string>[];
  limits: EngineLimits;
}

/**
 * The child's answer to a `TrialsChildJob`: the outcomes, or `missing` when it was sent only the
 * key of candles it does not hold (the host sends them then); and, either way, its process id
 * and the candle keys it now holds.
 */
export type TrialsAnswer = { pid: number; held: string[] } & ({ missing: true } | { missing: false; outcomes: TrialOutcome[] });

/**
 * Runs a `TrialsChildJob` in the child: the candles shipped with it (kept in `cache` for later
 * calls) or held in `cache`, cut to the call's window (views, no copy), then `runTrialsInGuest`.
 */
export async function runTrialsJob(
  payload: TrialsChildJob,
  cache: TrialCandleCache,
  hooks: { isCancelled(): boolean; onTrial(done: number, total: number): void },
): Promise<TrialsAnswer> {
  const { key, columns } = payload.candles;
  const candles = columns ?? cache.get(key);
  if (columns !== null) cache.put(key, columns);
  if (candles === undefined) return { missing: true, pid: process.pid, held: cache.keys() };
  const job = windowJob(payload.job, candles, payload.window);
  const outcomes = await runTrialsInGuest(job, payload.params, payload.limits, hooks, payload);
  return { missing: false, outcomes, pid: process.pid, held: cache.keys() };
}

/**
 * Runs one strategy over the same candles once per parameter set, in the child that received the
 * candles once: each trial is a whole backtest (`runBacktestInGuest`). With `snapshots` (the
 * default) each trial starts from a copy of one WASM instance's memory taken after the guest
 * runtime was evaluated, set back byte for byte before the trial boots it with its seed and loads
 * the strategy (quickjs-warm-start.ts); without, each trial opens its own QuickJS runtime (its
 * own heap, globals and limits) in one WASM instance and evaluates the runtime. Either way no state
 * of one trial (module variables, globals, the seeded random, the heap) reaches another; after a
 * failed trial the instance is replaced. A trial that fails (the strategy throws, bad parameters,
 * its CPU budget) is answered as failed and the others go on; a cancel stops the sweep
 * (CANCELLED). `onTrial` is called after each trial with the count done. `options`: a seed per
 * trial, period returns of each completed trial (over `window`, the window `job` was cut to, else
 * the whole run), each trial's last log lines, `snapshots`.
 */
export async function runTrialsInGuest(
  job: WireJob,
  paramSets: readonly Record<string, string>[],
  limits: EngineLimits,
  hooks: { isCancelled(): boolean; onTrial(done: number, total: number): void },
  options: TrialsInGuestOptions = {},
): Promise<TrialOutcome[]> {
  const { seeds = null, periodMs = null, window = null, logs = false, snapshots = true } = options;
  const lastLogs = (lines: GuestLogLine[]) => (logs ? { logs: lines.slice(-MAX_TRIAL_LOG_LINES) } : {});
  const outcomes: TrialOutcome[] = [];
  // One WASM instance for the trials (opening one is about half of a fresh session), replaced after a trial that failed.
  // The source compiled once for every trial (the same source, the same answer).
  const compiled = new Map<string, Promise<CompiledStrategy>>();
  const compile = (source: string) => {
    let known = compiled.get(source);
    if (known === undefined) compiled.set(source, (known = compileStrategySourceAsync(source)));
    return known;
  };
  const lease = snapshots ? await leaseWarmStart(limits) : undefined;
  const warm = lease?.warm;
  const runHooks: RunHooks = {
    isCancelled: hooks.isCancelled,
    onProgress() {},
    ...(warm ? { warm } : { wasm: await newQuickJSInstance(limits.build, wasmHeapCap(limits.memoryLimitBytes)) }),
    compile,
    series: createSeriesCache(),
    firstBatch: TRIAL_FIRST_BATCH,
  };
  try {
    for (const [k, params] of paramSets.entries()) {
      if (hooks.isCancelled()) throw new SandboxError('CANCELLED', 'The trials were cancelled');
      try {
        const out = await runBacktestInGuest({ ...job, params, seed: seeds?.[k] ?? job.seed }, limits, runHooks);
        const { metrics, cpuMs } = out;
        const outcome: TrialOutcome = { params, ok: true, used: out.params, metrics, trades: out.trades.length / TRADE_FIELDS, cpuMs, ...lastLogs(out.logs) };
        if (periodMs !== null) {
          // The equity is marked at every distinct traded candle time; with one symbol those are its traded candles.
          const times = out.equityTimes ?? job.candles[0]!.time.subarray(job.history[0]);
          outcome.returns = periodReturns(times, out.equity, job.initialCapital, trialGrid(job, out.meta, window, periodMs));
        }
        outcomes.push(outcome);
      } catch (error) {
        if (!(error instanceof SandboxError) || error.code === 'CANCELLED') throw error;
        outcomes.push({ params, ok: false, error: { code: error.code, message: error.message }, cpuMs: error.cpuMs, ...lastLogs(error.logs) });
        if (warm) warm.discard();
        else runHooks.wasm = await newQuickJSInstance(limits.build, wasmHeapCap(limits.memoryLimitBytes));
      }
      hooks.onTrial(outcomes.length, paramSets.length);
    }
  } catch (error) {
    lease?.drop();
    throw error;
  } finally {
    lease?.release();
  }
  return outcomes;
}

/**
 * Warm starts kept for later calls in this process (a sandbox child), by limits: the guest runtime
 * is evaluated once per child rather than once per call, so an optimization's slices pay it once.
 * A warm start sets the memory back byte for byte before every session, so keeping it across calls
 * shares no more between trials than within one call. One in use by a call is not lent to another
 * (that one builds its own), and one a call threw through (a cancel, a crash) is dropped.
 */
const warmStarts = new Map<string, { warm: Promise<BacktestWarmStart>; busy: boolean }>();
const MAX_WARM_STARTS = 2;

async function leaseWarmStart(limits: EngineLimits): Promise<{ warm: BacktestWarmStart; release(): void; drop(): void }> {
  const key = `${limits.build}|${limits.memoryLimitBytes}|${limits.stackLimitBytes}`;
  let entry = warmStarts.get(key);
  if (entry === undefined || entry.busy) {
    const fresh = { warm: createBacktestWarmStart(limits), busy: false };
    if (entry === undefined) {
      warmStarts.set(key, fresh);
      for (const oldest of warmStarts.keys()) if (warmStarts.size > MAX_WARM_STARTS) warmStarts.delete(oldest);
    }
    entry = fresh;
  }
  const leased = entry;
  leased.busy = true;
  const drop = () => {
    if (warmStarts.get(key) === leased) warmStarts.delete(key);
  };
  const warm = await leased.warm.catch((error: unknown) => {
    leased.busy = false;
    drop();
    throw error;
  });
  return { warm, release: () => (leased.busy = false), drop };
}
