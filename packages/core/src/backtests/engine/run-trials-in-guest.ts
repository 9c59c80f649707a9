import { TRADE_FIELDS } from '../../engine/model/codes.js';
import { wasmHeapCap } from '../../sandbox/quickjs-session.js';
import { newQuickJSInstance } from '../../sandbox/quickjs-variants.js';
import { SandboxError, type SandboxErrorCode } from '../../sandbox/sandbox-error.js';
import type { ParamValue } from '../../sandbox/strategy-meta.js';
import { type CompiledStrategy, compileStrategySourceAsync } from '../../sandbox/strategy-source.js';
import type { WireJob } from './backtest-job.js';
import type { BacktestMetrics } from './metrics.js';
import { type EngineLimits, type RunHooks, runBacktestInGuest } from './run-in-guest.js';

/** What one trial of a sweep answered: the parameters it ran with (parsed) and its metrics, or why it failed. */
export type TrialOutcome =
  | { params: Record<string, string>; ok: true; used: Record<string, ParamValue>; metrics: BacktestMetrics; trades: number; cpuMs: number }
  | { params: Record<string, string>; ok: false; error: { code: SandboxErrorCode; message: string }; cpuMs: number };

/**
 * Runs one strategy over the same candles once per parameter set, in the child that received the
 * candles once: each trial is a whole backtest (`runBacktestInGuest`) in its own QuickJS runtime
 * (its own heap, globals and limits) in one WASM instance, so no state of one trial (module
 * variables, globals, the seeded random) reaches another; after a failed trial the instance is
 * replaced. A trial that fails (the strategy throws, bad parameters, its CPU budget) is answered
 * as failed and the others go on; a cancel stops the sweep (CANCELLED). `onTrial` is called after
 * each trial with the count done.
 */
export async function runTrialsInGuest(
  job: WireJob,
  paramSets: readonly Record<string, string>[],
  limits: EngineLimits,
  hooks: { isCancelled(): boolean; onTrial(done: number, total: number): void },
): Promise<TrialOutcome[]> {
  const outcomes: TrialOutcome[] = [];
  // One WASM instance for the trials (opening one is about half of a fresh session), replaced after a trial that failed.
  // The source compiled once for every trial (the same source, the same answer).
  const compiled = new Map<string, Promise<CompiledStrategy>>();
  const compile = (source: string) => {
    let known = compiled.get(source);
    if (known === undefined) compiled.set(source, (known = compileStrategySourceAsync(source)));
    return known;
  };
  const runHooks: RunHooks = {
    isCancelled: hooks.isCancelled,
    onProgress() {},
    wasm: await newQuickJSInstance(limits.build, wasmHeapCap(limits.memoryLimitBytes)),
    compile,
  };
  for (const params of paramSets) {
    if (hooks.isCancelled()) throw new SandboxError('CANCELLED', 'The trials were cancelled');
    try {
      const out = await runBacktestInGuest({ ...job, params }, limits, runHooks);
      outcomes.push({ params, ok: true, used: out.params, metrics: out.metrics, trades: out.trades.length / TRADE_FIELDS, cpuMs: out.cpuMs });
    } catch (error) {
      if (!(error instanceof SandboxError) || error.code === 'CANCELLED') throw error;
      outcomes.push({ params, ok: false, error: { code: error.code, message: error.message }, cpuMs: error.cpuMs });
      runHooks.wasm = await newQuickJSInstance(limits.build, wasmHeapCap(limits.memoryLimitBytes));
    }
    hooks.onTrial(outcomes.length, paramSets.length);
  }
  return outcomes;
}
