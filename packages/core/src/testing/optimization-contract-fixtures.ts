import type { OptimizationResults } from '@stratbox/contract';
import type { OptimizationRecord, OptimizationSpec, OptimizationTrialRecord, Store, StrategyRecord } from '../ports/store.js';
import type { TrialMetricValues } from '../ports/store-optimizations.js';
import { at, uid } from './contract-fixtures.js';

/* Fixtures of the Store contract of optimizations and their trials. */

/** What the optimization suites get from `describeStoreContract`: its shared store, users, and a strategy maker. */
export type OptimizationsContext = () => {
  store: Store;
  userId: string;
  otherUserId: string;
  /** Inserts a strategy of `owner` (optimizations belong to an existing strategy). */
  insertStrategy: (owner: string) => Promise<StrategyRecord>;
};

/** Trial metrics with values a lossy codec would change (full-precision fractions, negatives, nulls), and `overrides`. */
export const trialMetrics = (overrides: Partial<TrialMetricValues> = {}): TrialMetricValues => ({
  totalReturn: 0.1 + 0.2,
  cagr: null,
  maxDrawdown: -0.125,
  maxDrawdownDuration: 400 * 86_400_000,
  sharpe: 1.234_567_890_123_4,
  sortino: -0.000_001_234,
  calmar: null,
  winRate: 2 / 3,
  profitFactor: 1.5,
  expectancy: -12.345_678_9,
  tradeCount: 42,
  exposure: 0.999_999_999_999,
  feesPaid: 1234.567_89,
  fundingPaid: -0.0001,
  buyAndHoldReturn: null,
  ...overrides,
});

/** The smallest results: no sensitivity, no folds, no statistics. */
export const emptyOptimizationResults = (): OptimizationResults => ({
  sensitivity: { params: [], pairs: [] },
  folds: [],
  walkForwardEfficiency: null,
  outOfSampleEquity: null,
  overfitting: { deflatedSharpe: null, pbo: null },
});

/** Results with every part filled in: numbers scaled by `scale`, `label` (unicode, quotes, a line break) as a parameter value. */
export const optimizationResults = (scale: number, label = 'ünï "quoted" \\ back\nline'): OptimizationResults => ({
  sensitivity: {
    params: [{ param: 'fast', values: [{ value: label, best: 1.5 * scale, mean: null, trials: 3 }] }],
    pairs: [{ params: ['fast', 'mode'], x: ['5', label], y: ['ema'], best: [[(0.1 + 0.2) * scale], [null]] }],
  },
  folds: [
    {
      index: 0,
      inSample: { start: at(1), end: at(2), metrics: trialMetrics({ sharpe: 1.5 * scale }) },
      outOfSample: { start: at(2), end: at(3), metrics: null },
      params: { fast: label },
      efficiency: 0.25 * scale,
    },
  ],
  walkForwardEfficiency: null,
  outOfSampleEquity: [{ time: at(3), equity: 1_000.000_1 * scale }],
  overfitting: {
    deflatedSharpe: { value: 0.1 + 0.2, sharpe: 0.05 * scale, expectedMaxSharpe: 0.04, trials: 200, periods: 512, skewness: -0.5, kurtosis: 3.25 },
    pbo: null,
  },
});

/** A spec with every kind of value a lossy codec would change (unicode, quotes, fractions, nested unions). */
export const optimizationSpec = (): OptimizationSpec => ({
  symbols: ['BTC/USDT:USDT', 'ünï/cödé 🚀'],
  startDate: '2024-02-29',
  endDate: '2025-03-01',
  timeframe: '15m',
  marketType: 'LINEAR',
  fees: { maker: -0.0001, taker: 0.00075 },
  leverage: 12.5,
  slippage: 0.0003,
  initialCapital: 1_234_567.891_234_5,
  params: { fixed: '3', 'with "quotes"': 'and \\ back', empty: '' },
  funding: true,
  searchSpace: { fast: { min: 5, max: 50, step: 5 }, mode: { values: ['ema', 'sma'] }, on: { values: [true, false] }, k: { values: [0.1, 0.2] } },
  method: { kind: 'random', count: 200, seed: 42 },
  objective: 'sharpe',
  constraints: { minTrades: 10, maxDrawdown: 0.25 },
  validation: { kind: 'walk-forward', folds: 4, mode: 'anchored', inSampleFraction: 0.7 },
});

/** A queued optimization of `strategyId` (which must exist before it is inserted). */
export function optimization(userId: string, strategyId: string, overrides: Partial<OptimizationRecord> = {}): OptimizationRecord {
  return {
    id: uid('opt'),
    userId,
    strategyId,
    strategyVersion: 2,
    status: 'queued',
    progress: 0,
    trialsDone: 0,
    trialsTotal: 200,
    spec: optimizationSpec(),
    best: null,
    computeMs: 0,
    attempts: 0,
    createdAt: at(0),
    startedAt: null,
    finishedAt: null,
    error: null,
    ...overrides,
  };
}

/** Every field away from the fixture's defaults, with values that float4 or a lossy codec would change. */
export const finishedOptimization = (userId: string, strategyId: string, overrides: Partial<OptimizationRecord> = {}) =>
  optimization(userId, strategyId, {
    strategyVersion: 17,
    status: 'failed',
    progress: 0.1 + 0.2,
    trialsDone: 123,
    trialsTotal: 100_000,
    spec: {
      ...optimizationSpec(),
      marketType: 'SPOT',
      funding: false,
      method: { kind: 'grid' },
      constraints: {},
      validation: { kind: 'holdout', fraction: 0.3 },
    },
    best: {
      index: 77,
      fold: null,
      params: { fast: '15', mode: 'ema' },
      objective: 1.234_567_890_123_4,
      metrics: trialMetrics(),
      backtestId: uid('bt'),
    },
    computeMs: 1234.5678,
    attempts: 2,
    createdAt: at(10),
    startedAt: at(11),
    finishedAt: at(12),
    error: { code: 'STRATEGY_ERROR', message: 'TypeError: x is not a function ✗ "quoted"\n  at onCandle (line 3)' },
    ...overrides,
  });

/** A completed, feasible trial `index` of the optimization, with returns. */
export function trial(optimizationId: string, index: number, overrides: Partial<OptimizationTrialRecord> = {}): OptimizationTrialRecord {
  return {
    optimizationId,
    index,
    fold: null,
    params: { fixed: '3', fast: String(5 + index) },
    status: 'completed',
    objective: index / 7,
    feasible: true,
    metrics: trialMetrics({ sharpe: index / 7, tradeCount: index }),
    error: null,
    cpuMs: 12.5 + index,
    returns: Float64Array.from([0.01 * index, -0.002, 1 / 3]),
    ...overrides,
  };
}

/** A failed trial: no objective, metrics or returns. */
export const failedTrial = (optimizationId: string, index: number, overrides: Partial<OptimizationTrialRecord> = {}) =>
  trial(optimizationId, index, {
    status: 'failed',
    objective: null,
    feasible: false,
    metrics: null,
    error: { code: 'STRATEGY_ERROR', message: `trial ${index} threw "boom"` },
    returns: null,
    ...overrides,
  });

/** A trial as `listTrials` answers it: without its returns. */
export const viewOf = ({ returns: _returns, ...view }: OptimizationTrialRecord) => view;

const hex = (values: Float64Array) => Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('hex');

/** A trial with its returns as the hex of their bytes, to compare values bit for bit (-0, NaN payloads). */
export const comparableTrial = (t: OptimizationTrialRecord) => ({ ...t, returns: t.returns === null ? null : hex(t.returns) });
