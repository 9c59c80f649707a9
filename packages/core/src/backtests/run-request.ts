import { SPOT_LEVERAGE_MESSAGE, spotLeverageProblem } from '@stratbox/contract';
import { runTimeframes } from '../engine/run-timeframes.js';
import { StratboxError } from '../errors/stratbox-error.js';
import { loadRunnableSource, type RunnableStrategy, resolveRunnableStrategy, withRunOnlyErrors } from '../marketplace/licences.js';
import { TIMEFRAME_MS, type TimeframeName } from '../ports/market-data.js';
import type { StoreRepositories } from '../ports/store.js';
import type { StrategyDeclaration, StrategyRunner } from '../ports/strategy-runner.js';

/** Most candles one backtest (or one trial of an optimization) may run over, all symbols together. */
export const MAX_BACKTEST_BARS = 5_000_000;

/** The fields of a run request (a backtest's, or an optimization's besides its search), as the contract parsed them. */
export interface RunRequest {
  strategyId: string;
  symbols: string[];
  startDate: string;
  endDate: string;
  marketType?: 'LINEAR' | 'SPOT' | undefined;
  timeframe?: string | undefined;
  leverage: number;
}

/** The strategy a request runs, its source and what it declares. */
export interface RunnableRequest {
  runnable: RunnableStrategy;
  marketType: 'LINEAR' | 'SPOT';
  source: string;
  info: StrategyDeclaration;
}

/**
 * The strategy a run request names (the caller's own, or a bought listing: NOT_FOUND otherwise),
 * its market type (the request's, else the strategy's; no leverage on SPOT: 400), its source and
 * what it declares (inspected in the sandbox; a bought strategy's problems never quote its code).
 */
export async function resolveRunRequest(
  store: StoreRepositories,
  runner: Pick<StrategyRunner, 'inspect'>,
  userId: string,
  body: RunRequest,
): Promise<RunnableRequest> {
  const runnable = await resolveRunnableStrategy(store, userId, body.strategyId);
  const marketType = body.marketType ?? runnable.marketType;
  if (spotLeverageProblem(marketType, body.leverage)) {
    const why = body.marketType ? '' : " (the strategy's market type)";
    throw new StratboxError('VALIDATION_FAILED', `${SPOT_LEVERAGE_MESSAGE}${why}`, [{ path: 'body.leverage', message: SPOT_LEVERAGE_MESSAGE }]);
  }
  const { source } = await loadRunnableSource(store, userId, runnable.strategyId, runnable.version);
  const info = await withRunOnlyErrors(runnable.canReadSource, () => runner.inspect(source, { tenant: userId }));
  return { runnable, marketType, source, info };
}

/**
 * The timeframe a run request runs at (the request's, else `meta.timeframe`, else 1h; the
 * strategy's higher timeframes must be multiples of it) and the candles it spans, all symbols
 * together (at most MAX_BACKTEST_BARS); each symbol once. Throws VALIDATION_FAILED with the field.
 */
export function checkRunShape(body: RunRequest, info: StrategyDeclaration): { timeframe: TimeframeName; totalBars: number } {
  const timeframe = (body.timeframe ?? info.timeframe ?? '1h') as TimeframeName;
  const higher = runTimeframes(timeframe, info.timeframes as TimeframeName[] | undefined);
  if ('problem' in higher) throw new StratboxError('VALIDATION_FAILED', higher.problem, [{ path: 'body.timeframe', message: higher.problem }]);
  const days = (Date.parse(body.endDate) - Date.parse(body.startDate)) / 86_400_000 + 1;
  const totalBars = Math.round((days * 86_400_000) / TIMEFRAME_MS[timeframe]) * body.symbols.length;
  if (totalBars > MAX_BACKTEST_BARS) {
    throw new StratboxError('VALIDATION_FAILED', `The range holds ${totalBars} candles; at most ${MAX_BACKTEST_BARS} are allowed per backtest`, [
      { path: 'body.endDate', message: 'Range too long for this timeframe' },
    ]);
  }
  if (new Set(body.symbols).size !== body.symbols.length) {
    throw new StratboxError('VALIDATION_FAILED', 'Each symbol may appear once', [{ path: 'body.symbols', message: 'Duplicate symbol' }]);
  }
  return { timeframe, totalBars };
}
