/**
 * The strategy sandbox: a generic QuickJS host (a process pool and its child protocol, one
 * session type with limits and interrupts) plus host-side source and parameter checks. It knows
 * nothing of backtests or deployments: they drive it (the backtest engine's backtest-pool.ts, the deployments' live-sandbox.ts).
 */
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
export type { QuickJSBuild } from './quickjs-variants.js';
