import type { StrategyRunner } from '../ports/strategy-runner.js';

/**
 * The strategy runner a service takes: `strategyRunner`, or `executor`, its name before it became
 * a port (deprecated, still accepted so that hosts calling the factories keep working). One of the two.
 */
export type StrategyRunnerDep<R = StrategyRunner> =
  | {
      /** Runs strategy code in the sandbox (`createSandboxStrategyRunner`). */
      strategyRunner: R;
      executor?: undefined;
    }
  | {
      /** @deprecated Renamed `strategyRunner`. */
      executor: R;
      strategyRunner?: undefined;
    };

/**
 * The runner given as `strategyRunner` or as the deprecated `executor`, else `fallback()`. Throws
 * a TypeError when both names are given and differ, or when there is no runner at all (untyped code).
 */
export function pickStrategyRunner<R>(deps: { strategyRunner?: R | undefined; executor?: R | undefined }, where: string, fallback?: () => R): R {
  const { strategyRunner, executor } = deps;
  if (strategyRunner !== undefined && executor !== undefined && strategyRunner !== executor) {
    throw new TypeError(`${where}: give strategyRunner or its deprecated name executor, not both`);
  }
  const runner = strategyRunner ?? executor ?? fallback?.();
  if (runner === undefined) throw new TypeError(`${where}: strategyRunner is required`);
  return runner;
}
