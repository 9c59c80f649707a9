import type { StratboxConfig } from '@stratbox/core';
import type { ServerEnv } from './env.js';

/**
 * The backtest settings, from the parsed environment (each unset one keeps core's default):
 * STRATBOX_BACKTEST_CPU_MS, STRATBOX_SANDBOX_SIZE, STRATBOX_BACKTESTS_PER_USER and
 * STRATBOX_MAX_BACKTEST_TRADES, described in env.ts.
 */
export function readBacktestConfig(env: ServerEnv): Pick<StratboxConfig, 'sandbox' | 'perUserConcurrency' | 'maxBacktestTrades'> {
  const cpuTimeMs = env.STRATBOX_BACKTEST_CPU_MS;
  const size = env.STRATBOX_SANDBOX_SIZE;
  const perUser = env.STRATBOX_BACKTESTS_PER_USER;
  const maxTrades = env.STRATBOX_MAX_BACKTEST_TRADES;
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
