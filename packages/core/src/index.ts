/** `@stratbox/core`: domain services, ports and the contract of Stratbox. */
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
  type BacktestProgress,
  type StrategyInfo,
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
export { createSandboxExecutor } from './backtests/sandbox-executor.js';
export type { BacktestExecutor, BacktestRunInput, BacktestRunOutput, StrategyInfo as BacktestStrategyInfo } from './backtests/backtest-executor.js';
export * from './billing/index.js';
export * from './marketplace/index.js';
export * from './credentials/index.js';
export * from './exchanges/index.js';
export * from './deployments/index.js';
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
