import type { SandboxPool } from './engine/backtest-pool.js';
import { parseStrategyParams, type ParamSpec } from '../sandbox/strategy-meta.js';
import type { BacktestRunInput, StrategyDeclaration, StrategyRunner } from '../ports/strategy-runner.js';
import { downsampleEquity } from './equity-downsample.js';

/** The StrategyRunner on the QuickJS sandbox pool; `close` closes the pool. */
export function createSandboxStrategyRunner(pool: SandboxPool): StrategyRunner {
  return {
    async inspect(source, options = {}) {
      const info = await pool.inspectStrategy(source, options);
      return { timeframe: info.meta.timeframe, timeframes: info.meta.timeframes, warmup: info.meta.warmup, params: info.meta.params };
    },
    checkParams(declaration: StrategyDeclaration, params) {
      parseStrategyParams(declaration.params as Record<string, ParamSpec> | undefined, params);
    },
    async run(input: BacktestRunInput, { signal, onProgress, tenant }) {
      const candles: Record<
        string,
        { time: Float64Array; open: Float64Array; high: Float64Array; low: Float64Array; close: Float64Array; volume: Float64Array }
      > = {};
      for (const s of input.series) candles[s.symbol] = s;
      const result = await pool.runBacktest(
        {
          source: input.source,
          candles,
          symbols: input.series.map((s) => s.symbol),
          ...(input.startTime === undefined ? {} : { startTime: input.startTime }),
          ...(input.series[0] === undefined ? {} : { timeframe: input.series[0].timeframe }),
          fees: input.fees,
          leverage: input.leverage,
          slippage: input.slippage,
          initialCapital: input.initialCapital,
          params: input.params,
          seed: input.seed,
          marketType: input.marketType,
          ...(input.funding === undefined ? {} : { funding: input.funding }),
        },
        { signal, ...(tenant === undefined ? {} : { tenant }), onProgress: (p) => onProgress(p.processedBars, p.totalBars) },
      );
      return {
        equityCurve: downsampleEquity(result.series.times, result.series.equity),
        trades: result.trades as unknown as Array<Record<string, unknown>>,
        metrics: result.metrics as unknown as Record<string, unknown>,
        computeMs: result.stats.cpuMs,
        logs: result.logs.map((l) => ({ time: Date.parse(l.time), level: l.level, message: l.message })),
      };
    },
    close: () => pool.close(),
  };
}
