/** `@stratbox/core`: domain services, ports and the contract of Stratbox. */
import type { StrategyDeclaration, StrategyRunner } from './ports/strategy-runner.js';
import type { SandboxPool, StrategyInspection } from './backtests/engine/backtest-pool.js';
import { createSandboxStrategyRunner } from './backtests/sandbox-strategy-runner.js';

export * from '@stratbox/contract';
export * from './errors/index.js';
export * from './ports/index.js';
export { createStratbox, type Stratbox, type StratboxConfig } from './create-stratbox.js';
export { createApiHandlers, type ApiHandlers, type ApiHandler, type HandlerContext } from './api/handlers.js';
export { createStrategyService, type StrategyService } from './strategies/strategy-service.js';
export { measureSource, type SourceChecker } from './strategies/source.js';
export { createApiKeyService, hashApiKey, bearerToken, type ApiKeyService, type ApiKeyServiceConfig } from './auth/api-keys.js';
export { newId } from './util/ids.js';
export { parseInput, describeIssues, type ValidationProblem } from './util/validate.js';
export { encodeCursor, decodeCursor, paginate } from './util/cursor.js';
export { createMemoryStore } from './testing/memory-store.js';
export type { EventBus, ChannelHandler, Unsubscribe } from './ports/event-bus.js';
export * from './events/index.js';
export * from './market-data/index.js';
export * from './ports/market-data.js';
export type { Job, JobHandler, JobQueue, ProcessOptions } from './ports/job-queue.js';
export { createInProcessJobQueue } from './queue/in-process-job-queue.js';
export * from './sandbox/index.js';
export {
  createSandboxPool,
  type SandboxPool,
  type SandboxPoolOptions,
  type RunOptions,
  type TrialsOptions,
  type TrialOutcome,
  type BacktestProgress,
  type StrategyInspection,
} from './backtests/engine/backtest-pool.js';
export type {
  BacktestJob,
  BacktestResult,
  BacktestTrade,
  BacktestEquityPoint,
  BacktestLogLine,
  CandleInput,
  CandleColumns,
  BacktestMetrics,
} from './backtests/engine/index.js';
export { createBacktestService, MAX_BACKTEST_BARS, type BacktestService } from './backtests/backtest-service.js';
export { createBacktestWorker, type BacktestWorkerDeps, type BacktestRecovery } from './backtests/backtest-worker.js';
export { createOptimizationService, OPTIMIZATION_JOB, type OptimizationService, type OptimizationServiceDeps } from './optimizations/optimization-service.js';
export { createOptimizationWorker, type OptimizationWorkerDeps } from './optimizations/optimization-worker.js';
export { createSandboxStrategyRunner } from './backtests/sandbox-strategy-runner.js';
export * from './billing/index.js';
export * from './marketplace/index.js';
export * from './credentials/index.js';
export * from './exchanges/index.js';
export * from './deployments/index.js';
export * from './notifications/index.js';
export { createLiveSandbox, type LiveSandbox, type LiveSandboxOptions, type LiveSandboxSession } from './deployments/live-sandbox.js';
export {
  createMemoryRateLimiter,
  createFlexibleRateLimiter,
  memoryLimiter,
  resolveRateLimits,
  DEFAULT_RATE_LIMITS,
  type RateLimit,
  type RateLimits,
} from './rate-limit/flexible-rate-limiter.js';
export { normalCdf, normalPdf, normalQuantile } from './research/normal-distribution.js';
export {
  EULER_MASCHERONI,
  deflatedSharpeOfReturns,
  deflatedSharpeRatio,
  expectedMaxSharpe,
  probabilisticSharpeRatio,
  returnMoments,
  type DeflatedSharpeInput,
  type DeflatedSharpeReport,
  type ProbabilisticSharpeInput,
  type ReturnMoments,
  type SharpeTrials,
} from './research/deflated-sharpe.js';
export {
  probabilityOfBacktestOverfitting,
  probabilityOfBacktestOverfittingAsync,
  sharpeMetric,
  type BacktestOverfittingOptions,
  type BacktestOverfittingResult,
  type CscvCombination,
  type PerformanceMetric,
} from './research/backtest-overfitting.js';
export {
  bestTrial,
  compareTrials,
  isFeasible,
  objectiveOf,
  type RankedTrial,
  type TrialConstraints,
  // The contract's `TrialMetrics` is the schema; this is its type.
  type TrialMetrics as TrialMetricValues,
} from './research/trial-score.js';
export type { SliceOptions } from './research/time-slices.js';
export { MAX_GRID_PERIODS, periodCount, periodGrid, periodReturns, type PeriodGrid } from './backtests/engine/period-returns.js';
export {
  MAX_SENSITIVITY_PAIR_CELLS,
  MAX_SENSITIVITY_PAIR_PARAMS,
  pairSensitivity,
  paramSensitivity,
  type PairSensitivityResult,
  type ParamSensitivityResult,
  type SearchedParam,
  type SensitivityTrial,
} from './research/sensitivity.js';
export {
  MAX_CSCV_PARTITIONS,
  MAX_CSCV_TRIAL_SPLITS,
  MIN_CSCV_PARTITIONS,
  MIN_DSR_PERIODS,
  cscvPartitions,
  overfittingStatistics,
  overfittingStatisticsAsync,
  type OverfittingStatistics,
  type TrialReturns,
} from './research/optimization-statistics.js';

// Names before the strategy runner became a port (kept so host apps keep compiling).
/** @deprecated Renamed `StrategyRunner`: it runs strategy code for backtests and for checks before a save or a deployment. */
export type BacktestExecutor = StrategyRunner;
/** @deprecated Renamed `StrategyDeclaration` (what a strategy declares in `meta`: timeframe, warmup, params). */
export type BacktestStrategyInfo = StrategyDeclaration;
/** @deprecated Renamed `StrategyInspection` (what inspecting a strategy in the sandbox pool answers: its `meta` and exports). */
export type StrategyInfo = StrategyInspection;
/** @deprecated Renamed `createSandboxStrategyRunner`. */
export const createSandboxExecutor: (pool: SandboxPool) => StrategyRunner = createSandboxStrategyRunner;
