import { guestScript } from '../../engine/guest-script.js';
import type { ChildProgram } from '../../sandbox/child-program.js';
import { quickJSBuildOr } from '../../sandbox/quickjs-variants.js';
import type { BacktestChildJob } from './backtest-worker-protocol.js';
import { inspectStrategyInGuest } from './inspect-in-guest.js';
import { runBacktestInGuest } from './run-in-guest.js';
import { runTrialsJob } from './run-trials-in-guest.js';
import { createTrialCandleCache } from './trial-candle-cache.js';

/**
 * Before taking jobs: starts esbuild's service, compiles the WASM module and runs a tiny
 * backtest, so V8 has compiled QuickJS's hot paths and the first real job does not pay for it.
 */
async function warmUp(): Promise<void> {
  const build = quickJSBuildOr(process.argv[2]);
  const n = 2000;
  const column = (f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));
  const candles = {
    time: column((i) => i * 60_000),
    open: column(() => 100),
    high: column((i) => 101 + (i % 3)),
    low: column((i) => 99 - (i % 2)),
    close: column((i) => 100 + (i % 5)),
    volume: column(() => 1),
  };
  await runBacktestInGuest(
    {
      source: await guestScript('warm-up-strategy'),
      symbols: ['WARM/UP'],
      candles: [candles],
      history: [0],
      startTime: 0,
      timeframe: '1m',
      fees: { maker: 0, taker: 0 },
      leverage: 1,
      slippage: 0,
      initialCapital: 10_000,
      params: {},
      seed: 1,
      marketType: 'LINEAR',
      maintenanceMarginRate: 0.005,
      funding: [null],
    },
    { build, memoryLimitBytes: 64 * 1024 * 1024, stackLimitBytes: 256 * 1024, cpuTimeMs: 5000, maxLogLines: 10, maxLogBytes: 1000, maxIndicators: 8 },
    { isCancelled: () => false, onProgress() {} },
  );
}

/**
 * The candles of the last `runTrials` calls (the two most recently used sets, 256 MiB at most):
 * the slices of a sweep after the first are sent only their key.
 */
const trialCandles = createTrialCandleCache({ maxEntries: 2, maxBytes: 256 * 1024 * 1024 });

/**
 * The program of the backtest sandbox children (forked by `createSandboxPool`, entry
 * backtest-worker-entry.ts): runs a backtest, the trials of a sweep or a strategy check, each
 * backtest in a fresh QuickJS instance and runtime.
 */
export const backtestChildProgram: ChildProgram = {
  warmUp,
  run(payload, context) {
    const job = payload as BacktestChildJob;
    if (job.kind === 'inspect') return inspectStrategyInGuest(job.source, job.limits, context.isCancelled);
    if (job.kind === 'trials') return runTrialsJob(job, trialCandles, { isCancelled: context.isCancelled, onTrial: context.progress });
    return runBacktestInGuest(job.job, job.limits, { isCancelled: context.isCancelled, onProgress: context.progress });
  },
};
