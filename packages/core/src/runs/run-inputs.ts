import { loadRunnableSource } from '../marketplace/licences.js';
import type { CandleSeries } from '../ports/market-data.js';
import type { StoreRepositories } from '../ports/store.js';
import type { StrategyDeclaration, StrategyRunner } from '../ports/strategy-runner.js';
import { RunFailure } from './run-failure.js';

/** What a run records about the strategy it runs. */
export interface RunStrategyRecord {
  userId: string;
  strategyId: string;
  strategyVersion: number;
}

export interface RunStrategy {
  source: string;
  /** The user runs their own strategy (not a bought one): its errors and log lines may be shown to them. */
  ownsSource: boolean;
  /** The strategy's declaration (`meta`, params), read in the sandbox as the run's user. */
  info: StrategyDeclaration;
}

/**
 * The source a run executes (its own strategy, or one the user bought a licence to) and its
 * declaration. Fails with `STRATEGY_DELETED` when the version is gone.
 */
export async function loadRunStrategy(store: StoreRepositories, runner: Pick<StrategyRunner, 'inspect'>, record: RunStrategyRecord): Promise<RunStrategy> {
  const version = await loadRunnableSource(store, record.userId, record.strategyId, record.strategyVersion).catch(() => null);
  if (!version) throw new RunFailure('STRATEGY_DELETED', `Strategy ${record.strategyId} version ${record.strategyVersion} no longer exists`);
  const info = await runner.inspect(version.source, { tenant: record.userId });
  return { source: version.source, ownsSource: version.userId === record.userId, info };
}

/** Fails with `DATA_NOT_FOUND` when no symbol has a candle at or after `from` (the first traded time). */
export function assertCandlesFrom(series: readonly CandleSeries[], from: number): void {
  if (series.every((s) => s.length === 0 || s.time[s.length - 1]! < from)) throw new RunFailure('DATA_NOT_FOUND', 'No candles in the requested range');
}
