import { runSeed } from '../../backtests/run-seed.js';
import type { CandleSeries } from '../../ports/market-data.js';
import type { VerificationRecordRow } from '../../ports/store-verification.js';
import type { BacktestRunInput, BacktestRunOutput, StrategyRunner } from '../../ports/strategy-runner.js';

/** One sandbox run of what a record's identity says (version, parameters, fees, slippage, capital), under the platform's tenant, as background work (users' runs go first). */
export function runRecordIdentity(
  deps: { strategyRunner: StrategyRunner; signal?: AbortSignal | undefined; settings: { tenant: string } },
  record: VerificationRecordRow,
  run: {
    source: string;
    series: CandleSeries[];
    startTime: number | undefined;
    /** What the run's seed is derived from, as a user's backtest derives it from its dates. */
    seedWindow: { startDate: string; endDate: string };
    funding: BacktestRunInput['funding'] | undefined;
  },
): Promise<BacktestRunOutput> {
  const { identity } = record;
  return deps.strategyRunner.run(
    {
      source: run.source,
      series: run.series,
      ...(run.startTime === undefined ? {} : { startTime: run.startTime }),
      fees: identity.fees,
      leverage: 1,
      slippage: identity.slippage,
      initialCapital: identity.initialCapital,
      params: identity.params,
      marketType: identity.marketType,
      seed: runSeed({
        strategyId: record.strategyId,
        strategyVersion: identity.strategyVersion,
        symbols: identity.symbols,
        ...run.seedWindow,
        timeframe: identity.timeframe,
        params: identity.params,
      }),
      ...(run.funding ? { funding: run.funding } : {}),
    },
    { signal: deps.signal ?? new AbortController().signal, tenant: deps.settings.tenant, background: true, onProgress: () => {} },
  );
}
