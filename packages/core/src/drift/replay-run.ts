import { StratboxError } from '../errors/stratbox-error.js';
import { cpuMsOf, runErrorFor } from '../runs/run-errors.js';
import type { BacktestRunInput, BacktestRunOutput, StrategyRunner } from '../ports/strategy-runner.js';

/** How a replay's CPU time is charged: the user's compute, as a backtest's. */
export interface ReplayMetering {
  /** Throws 402 PLAN_LIMIT_EXCEEDED (`counter: 'compute'`) when the user's compute is used up. */
  assertComputeLeft(userId: string): Promise<void>;
  /** Adds the CPU milliseconds a run used to the user's compute. */
  addCompute(userId: string, computeMs: number): Promise<void>;
}

/**
 * Runs a drift replay through the StrategyRunner as the user's run (`tenant: userId`: it takes
 * turns in the sandbox pool with their backtests) with the order journal on, and meters its CPU
 * time as the user's compute however it ends. A failed replay is a 409 CONFLICT whose message,
 * for a bought strategy, names only the error code (run-only licence: the author's message may
 * quote the source).
 */
export async function runReplay(
  deps: { strategyRunner: StrategyRunner; metering: ReplayMetering; signal?: AbortSignal | undefined },
  userId: string,
  input: Omit<BacktestRunInput, 'journal'>,
  ownsSource: boolean,
): Promise<BacktestRunOutput> {
  await deps.metering.assertComputeLeft(userId);
  let output: BacktestRunOutput;
  try {
    output = await deps.strategyRunner.run(
      { ...input, journal: true },
      { signal: deps.signal ?? new AbortController().signal, tenant: userId, onProgress: () => {} },
    );
  } catch (error) {
    await deps.metering.addCompute(userId, cpuMsOf(error));
    const failure = runErrorFor(error, ownsSource);
    throw new StratboxError('CONFLICT', `The drift replay failed (${failure.code}): ${failure.message}`, { code: failure.code });
  }
  await deps.metering.addCompute(userId, output.computeMs);
  return output;
}
