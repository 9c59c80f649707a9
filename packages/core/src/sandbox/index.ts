/** The strategy sandbox: QuickJS in a pool of child processes, plus host-side source and parameter checks. */
export { createSandboxPool, type SandboxPool, type SandboxPoolOptions, type RunOptions, type BacktestProgress } from './sandbox-pool.js';
export { SandboxError, isSandboxError, type SandboxErrorCode, type GuestLogLine } from './sandbox-error.js';
export { checkStrategySource, compileStrategySource, type CompiledStrategy, type SourceProblem } from './strategy-source.js';
export {
  parseStrategyParams,
  parseStrategyMeta,
  StrategyMetaSchema,
  ParamSpecSchema,
  type StrategyMeta,
  type ParamSpec,
  type ParamValue,
} from './strategy-meta.js';
export { createStrategySourceChecker } from './strategy-source-checker.js';
export type { StrategyInfo } from './worker-protocol.js';
export type { QuickJSBuild } from './quickjs-variants.js';
export type {
  BacktestJob,
  BacktestResult,
  BacktestTrade,
  BacktestEquityPoint,
  BacktestLogLine,
  CandleInput,
  CandleColumns,
  BacktestMetrics,
} from '../backtests/engine/index.js';
