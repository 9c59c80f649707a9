import { loadBacktestCandles } from '../backtests/load-backtest-candles.js';
import { loadBacktestFunding } from '../backtests/load-backtest-funding.js';
import { periodGrid } from '../backtests/engine/period-returns.js';
import type { TimeWindow } from '../backtests/engine/time-window.js';
import { TIMEFRAME_MS, type MarketData, type TimeframeName } from '../ports/market-data.js';
import type { Store } from '../ports/store.js';
import type { OptimizationRecord } from '../ports/store-optimizations.js';
import type { StrategyRunner, TrialsRunInput } from '../ports/strategy-runner.js';
import type { ParamSpec } from '../sandbox/strategy-meta.js';
import { type OptimizationPlan, planOptimization } from './optimization-plan.js';
import { assertCandlesFrom, loadRunStrategy } from '../runs/run-inputs.js';

/** What every trial of an optimization runs on: loaded once per node, shared by its slices. */
export interface RunInputs {
  plan: OptimizationPlan;
  input: Omit<TrialsRunInput, 'window' | 'periodMs'>;
  /** The user runs their own strategy (not a bought one): its errors may be quoted. */
  ownsSource: boolean;
  warmup: number;
  timeframeMs: number;
}

/** The runner's input for one window (a fold's in-sample or out-of-sample window, or the whole range). */
export function windowInput(inputs: RunInputs, window: TimeWindow): TrialsRunInput {
  return { ...inputs.input, window: { ...window, warmup: inputs.warmup }, periodMs: periodGrid(window, inputs.timeframeMs).periodMs };
}

/** Loads the strategy's source, the plan, the candles and funding of an optimization. Throws with a run error's code when one is missing. */
export async function loadRunInputs(
  deps: { store: Store; runner: Pick<StrategyRunner, 'inspect'>; marketData: MarketData },
  record: OptimizationRecord,
): Promise<RunInputs> {
  const { store, runner, marketData } = deps;
  const { spec } = record;
  const { source, ownsSource, info } = await loadRunStrategy(store, runner, record);
  const timeframe = spec.timeframe as TimeframeName;
  const plan = planOptimization(spec, info.params as Record<string, ParamSpec> | undefined, TIMEFRAME_MS[timeframe]);
  const { series } = await loadBacktestCandles(marketData, {
    symbols: spec.symbols,
    timeframe,
    startDate: spec.startDate,
    endDate: spec.endDate,
    warmup: info.warmup ?? 0,
  });
  assertCandlesFrom(series, plan.range.start);
  const funding = spec.funding ? await loadBacktestFunding(marketData, { symbols: spec.symbols, startDate: spec.startDate, endDate: spec.endDate }) : null;
  return {
    plan,
    input: {
      source,
      series,
      fees: spec.fees,
      leverage: spec.leverage,
      slippage: spec.slippage,
      initialCapital: spec.initialCapital,
      marketType: spec.marketType,
      ...(funding && funding.source !== null ? { funding: funding.funding } : {}),
    },
    ownsSource,
    warmup: Math.max(0, (info.warmup ?? 0) - 1),
    timeframeMs: TIMEFRAME_MS[timeframe],
  };
}

export interface RunInputsCache {
  /** The optimization's inputs, loaded on the first call and shared by later ones (a failed load is not kept). */
  get(record: OptimizationRecord): Promise<RunInputs>;
  /** Forgets the optimization's inputs (it ended, or is no longer running). */
  evict(optimizationId: string): void;
}

/**
 * A node's run inputs by optimization id, at most `max` optimizations (the least recently used
 * goes first): the coordinator and the slices an optimization runs on this node load its candles
 * once, however many slices the node takes.
 */
export function createRunInputsCache(load: (record: OptimizationRecord) => Promise<RunInputs>, max = 4): RunInputsCache {
  const entries = new Map<string, Promise<RunInputs>>();
  return {
    get(record) {
      let entry = entries.get(record.id);
      if (entry) {
        entries.delete(record.id); // most recently used last
      } else {
        entry = load(record);
        entry.catch(() => {
          if (entries.get(record.id) === entry) entries.delete(record.id);
        });
      }
      entries.set(record.id, entry);
      while (entries.size > Math.max(1, max)) entries.delete(entries.keys().next().value!);
      return entry;
    },
    evict(optimizationId) {
      entries.delete(optimizationId);
    },
  };
}
