import type { SandboxPool } from './engine/backtest-pool.js';
import { parseStrategyParams, type ParamSpec } from '../sandbox/strategy-meta.js';
import type { CandleSeries } from '../ports/market-data.js';
import type { BacktestRunInput, StrategyDeclaration, StrategyRunner, TrialRunOutcome } from '../ports/strategy-runner.js';
import { downsampleEquity } from './equity-downsample.js';

type WireCandles = Parameters<SandboxPool['runBacktest']>[0]['candles'];

/** The StrategyRunner on the QuickJS sandbox pool; `close` closes the pool. */
export function createSandboxStrategyRunner(pool: SandboxPool): StrategyRunner {
  /** The candles of a series list as the pool takes them: one object per list, so the pool digests a sweep's candles once. */
  const candlesOf = new WeakMap<readonly CandleSeries[], WireCandles>();
  const wireCandles = (series: readonly CandleSeries[]): WireCandles => {
    let candles = candlesOf.get(series);
    if (!candles) {
      candles = {};
      for (const s of series) candles[s.symbol] = s;
      candlesOf.set(series, candles);
    }
    return candles;
  };
  return {
    async inspect(source, options = {}) {
      const info = await pool.inspectStrategy(source, options);
      return { timeframe: info.meta.timeframe, timeframes: info.meta.timeframes, warmup: info.meta.warmup, params: info.meta.params };
    },
    checkParams(declaration: StrategyDeclaration, params) {
      parseStrategyParams(declaration.params as Record<string, ParamSpec> | undefined, params);
    },
    async run(input: BacktestRunInput, { signal, onProgress, tenant, background }) {
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
          ...(input.journal === true ? { journal: true } : {}),
        },
        {
          signal,
          ...(tenant === undefined ? {} : { tenant }),
          ...(background === undefined ? {} : { background }),
          onProgress: (p) => onProgress(p.processedBars, p.totalBars),
        },
      );
      return {
        equityCurve: downsampleEquity(result.series.times, result.series.equity),
        trades: result.trades as unknown as Array<Record<string, unknown>>,
        metrics: result.metrics as unknown as Record<string, unknown>,
        computeMs: result.stats.cpuMs,
        logs: result.logs.map((l) => ({ time: Date.parse(l.time), level: l.level, message: l.message })),
        ...(result.journal === undefined ? {} : { journal: result.journal, journalTruncated: result.journalTruncated === true, equitySeries: result.series }),
      };
    },
    async runTrials(input, trials, { signal, tenant, background }) {
      const outcomes = await pool.runTrials(
        {
          source: input.source,
          candles: wireCandles(input.series),
          symbols: input.series.map((s) => s.symbol),
          ...(input.series[0] === undefined ? {} : { timeframe: input.series[0].timeframe }),
          fees: input.fees,
          leverage: input.leverage,
          slippage: input.slippage,
          initialCapital: input.initialCapital,
          marketType: input.marketType,
          ...(input.funding === undefined ? {} : { funding: input.funding }),
        },
        trials.map((t) => t.params),
        {
          signal,
          ...(tenant === undefined ? {} : { tenant }),
          ...(background === undefined ? {} : { background }),
          window: input.window,
          periods: { periodMs: input.periodMs },
          seeds: trials.map((t) => t.seed),
        },
      );
      return outcomes.map((o): TrialRunOutcome => {
        if (!o.ok) return { ok: false, error: o.error, cpuMs: o.cpuMs };
        return { ok: true, metrics: o.metrics, returns: o.returns ?? new Float64Array(0), cpuMs: o.cpuMs };
      });
    },
    close: () => pool.close(),
  };
}
