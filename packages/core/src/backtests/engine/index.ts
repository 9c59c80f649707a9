/** The backtest engine: jobs, results and metrics. Run jobs with `createSandboxPool().runBacktest`. */
export type { BacktestJob, CandleInput, CandleColumns } from './backtest-job.js';
export type { BacktestResult, BacktestTrade, BacktestEquityPoint, BacktestLogLine } from './build-result.js';
export { curveMetrics, tradeMetrics, symbolMetrics, buyAndHold, medianGap, YEAR_MS, type BacktestMetrics, type BacktestSymbolMetrics } from './metrics.js';
