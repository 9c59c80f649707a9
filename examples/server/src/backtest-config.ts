import type { StratboxConfig } from '@stratbox/core';
import { optionalInt } from './env-int.js';

/**
 * The backtest settings, from the environment (each unset one keeps core's default):
 * - STRATBOX_BACKTEST_CPU_MS: CPU time one backtest may use before it fails with TIMEOUT
 *   (default 30000); the host stops it at this plus 15 s of wall-clock time whatever happens.
 * - STRATBOX_SANDBOX_SIZE: sandbox processes running backtests at once (default: cores - 1);
 *   strategy checks on save have one more of their own.
 * - STRATBOX_BACKTESTS_PER_USER: backtests one user runs at once per process (default 1); users
 *   take turns for the rest.
 * - STRATBOX_MAX_BACKTEST_TRADES: trades a run stores (default 10,000; metrics cover them all).
 */
export function readBacktestConfig(env: NodeJS.ProcessEnv = process.env): Pick<StratboxConfig, 'sandbox' | 'perUserConcurrency' | 'maxBacktestTrades'> {
  const cpuTimeMs = optionalInt(env, 'STRATBOX_BACKTEST_CPU_MS', 100);
  const size = optionalInt(env, 'STRATBOX_SANDBOX_SIZE', 1);
  const perUser = optionalInt(env, 'STRATBOX_BACKTESTS_PER_USER', 1);
  const maxTrades = optionalInt(env, 'STRATBOX_MAX_BACKTEST_TRADES', 0);
  return {
    sandbox: {
      ...(cpuTimeMs === undefined ? {} : { cpuTimeMs }),
      ...(size === undefined ? {} : { size }),
      ...(perUser === undefined ? {} : { maxRunningPerTenant: perUser }),
    },
    ...(perUser === undefined ? {} : { perUserConcurrency: perUser }),
    ...(maxTrades === undefined ? {} : { maxBacktestTrades: maxTrades }),
  };
}
