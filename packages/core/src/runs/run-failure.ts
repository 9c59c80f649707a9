/**
 * Why a run (backtest, optimization) stopped on its own inputs rather than on its strategy:
 * - `STRATEGY_DELETED`: the run's strategy version no longer exists;
 * - `DATA_NOT_FOUND`: no candle falls in the requested range;
 * - `INTERRUPTED`: crashes or stops interrupted it too many times.
 * `runErrorFor` records the code and message as they are: they speak of the request, not of the
 * strategy's code, so a buyer of the strategy may read them.
 */
export type RunFailureCode = 'STRATEGY_DELETED' | 'DATA_NOT_FOUND' | 'INTERRUPTED';

export class RunFailure extends Error {
  constructor(
    readonly code: RunFailureCode,
    message: string,
  ) {
    super(message);
    this.name = 'RunFailure';
  }
}
