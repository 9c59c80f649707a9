import { describe, expect, it } from 'vitest';
import { readBacktestConfig } from './backtest-config.js';
import { parseEnv } from './env.js';

describe('backtest settings from the environment', () => {
  it('keeps core defaults when nothing is set', () => {
    expect(readBacktestConfig(parseEnv({}))).toEqual({ sandbox: {} });
  });

  it('reads the CPU budget, sandbox size, per-user runs and trade cap', () => {
    expect(
      readBacktestConfig(
        parseEnv({ STRATBOX_BACKTEST_CPU_MS: '5000', STRATBOX_SANDBOX_SIZE: '3', STRATBOX_BACKTESTS_PER_USER: '2', STRATBOX_MAX_BACKTEST_TRADES: '500' }),
      ),
    ).toEqual({ sandbox: { cpuTimeMs: 5000, size: 3, maxRunningPerTenant: 2 }, perUserConcurrency: 2, maxBacktestTrades: 500 });
  });

  it('refuses a value that is not a whole number in range, naming the variable', () => {
    expect(() => readBacktestConfig(parseEnv({ STRATBOX_BACKTEST_CPU_MS: '5s' }))).toThrow(/STRATBOX_BACKTEST_CPU_MS must be an integer/);
    expect(() => readBacktestConfig(parseEnv({ STRATBOX_SANDBOX_SIZE: '0' }))).toThrow(/STRATBOX_SANDBOX_SIZE must be an integer of at least 1/);
  });
});
