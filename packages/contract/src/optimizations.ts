import { z } from 'zod';
import { BacktestStatus, RunError, RunFields, SymbolMetrics, refineRun } from './backtests.js';
import { DateOnly, MarketType, NextCursor, PageQuery, Timeframe, Timestamp, queryInteger } from './common.js';
import { BacktestId, OptimizationId, StrategyId } from './ids.js';
import { Fees } from './backtests.js';

/** Statuses of an optimization: those of a backtest. */
export const OptimizationStatus = BacktestStatus;
export type OptimizationStatus = z.infer<typeof OptimizationStatus>;

/** Most trials one optimization may hold, whatever the plan (plans cap lower: `trialsPerOptimization`). */
export const OPTIMIZATION_MAX_TRIALS = 100_000;
/** Most parameters one search may vary. */
export const OPTIMIZATION_MAX_SEARCHED = 10;
/** Most values one parameter's list may hold. */
export const OPTIMIZATION_MAX_VALUES = 1_000;

/** A metric the search maximizes (drawdown is a constraint, not an objective). */
export const OptimizationObjective = z.enum(['sharpe', 'sortino', 'calmar', 'totalReturn', 'cagr', 'profitFactor', 'expectancy', 'winRate']);
export type OptimizationObjective = z.infer<typeof OptimizationObjective>;

const SearchValue = z.union([z.number(), z.string().max(1000), z.boolean()]);

/** One parameter searched over listed values, or over min, min + step, ... up to max. */
export const ParamSearch = z.union([
  z.strictObject({ values: z.array(SearchValue).min(1).max(OPTIMIZATION_MAX_VALUES) }),
  z.strictObject({ min: z.number(), max: z.number(), step: z.number().positive() }),
]);

/** Parameter name to the values searched, typed and checked by the strategy's `meta.params`. */
export const SearchSpace = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { message: 'Parameter names are identifiers' }), ParamSearch)
  .refine((s) => Object.keys(s).length >= 1, { message: 'Name at least one parameter to search' })
  .refine((s) => Object.keys(s).length <= OPTIMIZATION_MAX_SEARCHED, { message: `At most ${OPTIMIZATION_MAX_SEARCHED} parameters` })
  .meta({
    description:
      'Per parameter: `{ values: [...] }` or `{ min, max, step }` (numeric parameters). Checked against `meta.params`: type, bounds, integers, options. ' +
      'A range is min + i × step up to max, rounded to the decimals of min and step.',
  });

export const SearchMethod = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('grid') }),
    z.strictObject({
      kind: z.literal('random'),
      count: z.number().int().min(1).max(OPTIMIZATION_MAX_TRIALS),
      seed: z.number().int().min(0).max(4_294_967_295).default(1),
    }),
  ])
  .meta({
    description:
      '`grid`: every combination (the last parameter varying fastest). `random`: `count` distinct combinations drawn from `seed` (the same seed draws the same), the whole grid in a seeded order when `count` is at least its size.',
  });

export const SearchConstraints = z
  .strictObject({
    minTrades: z.number().int().min(0).optional().meta({ description: 'A trial with fewer trades cannot be the best' }),
    maxDrawdown: z.number().gt(0).max(1).optional().meta({ description: 'A trial whose max drawdown is larger (a fraction) cannot be the best' }),
  })
  .meta({ description: 'Trials breaking a constraint are kept and listed with `feasible: false`, after every feasible one.' });

export const ValidationScheme = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('none') }),
    z.strictObject({ kind: z.literal('holdout'), fraction: z.number().gt(0).lt(1).default(0.25) }),
    z.strictObject({
      kind: z.literal('walk-forward'),
      folds: z.number().int().min(1).max(20),
      mode: z.enum(['rolling', 'anchored']).default('rolling'),
      inSampleFraction: z.number().gt(0).lt(1).default(0.5),
    }),
  ])
  .meta({
    description:
      '`none`: search the whole range. `holdout`: search all but the last `fraction` of the range, then test the winner on it. ' +
      '`walk-forward`: `folds` out-of-sample blocks tile the tail of the range; each fold searches the window before its block ' +
      '(`rolling`: of a fixed length; `anchored`: from the start of the range) and tests its winner on the block. See docs/research.md.',
  });

export const CreateOptimizationBody = refineRun(
  z.strictObject({
    ...RunFields,
    params: RunFields.params.meta({ description: 'Parameters fixed for every trial (not searched)' }),
    searchSpace: SearchSpace,
    method: SearchMethod.default({ kind: 'grid' }),
    objective: OptimizationObjective.default('sharpe'),
    constraints: SearchConstraints.default({}),
    validation: ValidationScheme.default({ kind: 'none' }),
  }),
);
export type CreateOptimizationBody = z.input<typeof CreateOptimizationBody>;

/** A trial's metrics: those of a backtest, without the per-symbol breakdown. */
export const TrialMetrics = SymbolMetrics;

/** One trial: one parameter set run over one in-sample window (the whole range with no validation). */
export const OptimizationTrial = z.object({
  index: z.number().int().meta({ description: 'fold × (trials per fold) + the combination index; 0-based' }),
  fold: z.number().int().nullable().meta({ description: 'The validation fold whose in-sample window it ran on; null without validation' }),
  params: z.record(z.string(), z.string()).meta({ description: 'Every parameter it ran with, as a backtest takes them (strings)' }),
  status: z.enum(['completed', 'failed']),
  objective: z.number().nullable().meta({ description: 'The objective metric; null when failed or undefined (e.g. a Sharpe ratio with no returns)' }),
  feasible: z.boolean().meta({ description: 'Completed, objective defined, every constraint met: it may be the best' }),
  metrics: TrialMetrics.nullable(),
  error: RunError,
  computeMs: z.number().int().meta({ description: 'CPU milliseconds the trial used (metered as compute), rounded up' }),
});
export type OptimizationTrial = z.infer<typeof OptimizationTrial>;

/** The best trial so far (of the last fold with validation) and, once completed, its full backtest. */
export const OptimizationBest = z.object({
  index: z.number().int(),
  fold: z.number().int().nullable(),
  params: z.record(z.string(), z.string()),
  objective: z.number(),
  metrics: TrialMetrics,
  backtestId: BacktestId.nullable().meta({
    description: 'A backtest of these parameters over the whole range, queued when the optimization completes; null before',
  }),
});

export const OptimizationSummary = z.object({
  id: OptimizationId,
  strategyId: StrategyId,
  strategyVersion: z.number().int(),
  status: OptimizationStatus,
  progress: z.number().min(0).max(1),
  trialsDone: z.number().int(),
  trialsTotal: z.number().int(),
  symbols: z.array(z.string()),
  startDate: DateOnly,
  endDate: DateOnly,
  timeframe: Timeframe,
  marketType: MarketType,
  fees: Fees,
  leverage: z.number(),
  slippage: z.number(),
  initialCapital: z.number(),
  params: z.record(z.string(), z.string()),
  funding: z.boolean(),
  searchSpace: SearchSpace,
  method: SearchMethod,
  objective: OptimizationObjective,
  constraints: SearchConstraints,
  validation: ValidationScheme,
  best: OptimizationBest.nullable(),
  computeMs: z.number().int().meta({ description: 'CPU milliseconds of sandboxed execution metered so far' }),
  createdAt: Timestamp,
  startedAt: Timestamp.nullable(),
  finishedAt: Timestamp.nullable(),
  error: RunError,
});
export type OptimizationSummary = z.infer<typeof OptimizationSummary>;

const Window = z.object({ start: Timestamp, end: Timestamp.meta({ description: 'Exclusive' }) });

/** One validation fold: the winner of its in-sample search and what it did out of sample. */
export const OptimizationFold = z.object({
  index: z.number().int(),
  inSample: Window.extend({ metrics: TrialMetrics.nullable() }),
  outOfSample: Window.extend({ metrics: TrialMetrics.nullable() }),
  params: z.record(z.string(), z.string()).nullable().meta({ description: 'The in-sample winner; null when no trial was feasible' }),
  efficiency: z.number().nullable().meta({ description: 'Annualized out-of-sample return over annualized in-sample return; null when in-sample <= 0' }),
});

/** Best and mean objective of the trials at each value of one parameter (1-parameter sensitivity). */
export const ParamSensitivity = z.object({
  param: z.string(),
  values: z.array(z.object({ value: z.string(), best: z.number().nullable(), mean: z.number().nullable(), trials: z.number().int() })),
});

/** Best objective at each pair of values of two parameters (2-parameter sensitivity: a heatmap). */
export const PairSensitivity = z.object({
  params: z.tuple([z.string(), z.string()]),
  x: z.array(z.string()).meta({ description: 'Values of the first parameter' }),
  y: z.array(z.string()).meta({ description: 'Values of the second parameter' }),
  best: z.array(z.array(z.number().nullable())).meta({ description: '`best[i][j]`: the best objective with x[i] and y[j]; null: no feasible trial' }),
});

export const DeflatedSharpe = z.object({
  value: z.number().meta({
    description: "Probability that the best trial's true Sharpe ratio beats the best that `trials` trials of pure luck would show (Bailey and López de Prado)",
  }),
  sharpe: z.number().meta({ description: "The best trial's per-period Sharpe ratio (not annualized)" }),
  expectedMaxSharpe: z.number(),
  trials: z.number().int(),
  periods: z.number().int(),
  skewness: z.number(),
  kurtosis: z.number(),
});

export const BacktestOverfitting = z.object({
  pbo: z.number().min(0).max(1).meta({ description: 'Share of the CSCV splits whose in-sample best ranked at or below the median out of sample' }),
  partitions: z.number().int(),
  combinations: z.number().int(),
  trials: z.number().int(),
  periods: z.number().int(),
});

export const OptimizationResults = z.object({
  sensitivity: z.object({ params: z.array(ParamSensitivity), pairs: z.array(PairSensitivity) }),
  folds: z.array(OptimizationFold),
  walkForwardEfficiency: z.number().nullable(),
  outOfSampleEquity: z
    .array(z.object({ time: Timestamp, equity: z.number() }))
    .nullable()
    .meta({ description: "The folds' out-of-sample equity chained into one curve; null without validation" }),
  overfitting: z.object({
    deflatedSharpe: DeflatedSharpe.nullable().meta({ description: 'Null with fewer than 2 completed trials or too few periods' }),
    pbo: BacktestOverfitting.nullable().meta({ description: 'Null with fewer than 2 completed trials or too few periods' }),
  }),
});
export type OptimizationResults = z.infer<typeof OptimizationResults>;

export const OptimizationDetail = OptimizationSummary.extend({
  results: OptimizationResults.nullable().meta({ description: 'Null until completed' }),
});
export type OptimizationDetail = z.infer<typeof OptimizationDetail>;

export const ListOptimizationsQuery = z.strictObject({
  strategyId: StrategyId.optional(),
  status: OptimizationStatus.optional(),
  ...PageQuery,
});
export const OptimizationList = z.object({ optimizations: z.array(OptimizationSummary), nextCursor: NextCursor });

export const ListTrialsQuery = z.strictObject({
  sort: z.enum(['objective', 'index']).default('objective').meta({
    description: '`objective`: feasible trials first, best objective first, then by index; `index`: in the order of the search',
  }),
  fold: queryInteger().min(0).optional().meta({ description: 'Only the trials of this fold' }),
  ...PageQuery,
});
export const TrialList = z.object({ trials: z.array(OptimizationTrial), nextCursor: NextCursor });

/** Data of an event on channel `optimization:<id>:progress`. */
export const OptimizationProgressEvent = z.object({
  optimizationId: OptimizationId,
  status: OptimizationStatus,
  progress: z.number().min(0).max(1),
  trialsDone: z.number().int(),
  trialsTotal: z.number().int(),
  best: z.object({ index: z.number().int(), params: z.record(z.string(), z.string()), objective: z.number() }).nullable(),
});
export type OptimizationProgressEvent = z.infer<typeof OptimizationProgressEvent>;
