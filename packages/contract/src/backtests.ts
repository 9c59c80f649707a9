import { z } from 'zod';
import { DateOnly, MarketSymbol, MarketType, NextCursor, PageQuery, ParamMap, Timeframe, Timestamp, queryInteger } from './common.js';
import { BacktestId, ListingId, StrategyId } from './ids.js';

export const BacktestStatus = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);
export type BacktestStatus = z.infer<typeof BacktestStatus>;

export const Fees = z.strictObject({
  maker: z.number().min(-0.01).max(0.1).meta({ description: 'Fraction of notional, e.g. 0.0002' }),
  taker: z.number().min(0).max(0.1).meta({ description: 'Fraction of notional, e.g. 0.0005' }),
});

export const SPOT_LEVERAGE_MESSAGE = 'SPOT backtests run with leverage 1';

/**
 * True when a backtest of `marketType` asks for leverage, which spot cannot have. The contract
 * checks it when the body names the market type; the service checks it again with the
 * strategy's market type when the body leaves it out.
 */
export function spotLeverageProblem(marketType: z.infer<typeof MarketType> | undefined, leverage: number): boolean {
  return marketType === 'SPOT' && leverage !== 1;
}

/** The fields of a run: what a backtest takes, and what an optimization takes besides its search. */
export const RunFields = {
  strategyId: z.union([StrategyId, ListingId]).meta({ description: 'Your strategy, or a listing you bought (run-only licence: the source stays hidden)' }),
  symbols: z.array(MarketSymbol).min(1).max(20),
  startDate: DateOnly,
  endDate: DateOnly,
  marketType: MarketType.optional().meta({ description: "Defaults to the strategy's market type." }),
  timeframe: Timeframe.optional().meta({ description: "Defaults to the strategy's `meta.timeframe`, else 1h." }),
  fees: Fees.default({ maker: 0.0002, taker: 0.0005 }),
  leverage: z
    .number()
    .min(1)
    .max(125)
    .default(1)
    .meta({ description: "Must be 1 for `SPOT` (given, or the strategy's market type): spot trades have no margin." }),
  slippage: z.number().min(0).max(0.1).default(0),
  initialCapital: z.number().positive().max(1e12).default(10_000),
  params: ParamMap.default({}),
  funding: z.boolean().default(true).meta({
    description:
      'Pay funding on LINEAR (perpetual) positions, from the funding rates of the market data (synthetic by default). `false` turns it off. Ignored for `SPOT`: spot has no funding.',
  }),
};

/** The checks across run fields: dates in order, no leverage on SPOT. */
export function refineRun<T extends z.ZodType<{ startDate: string; endDate: string; marketType?: z.infer<typeof MarketType> | undefined; leverage: number }>>(
  schema: T,
) {
  return schema
    .refine((b) => b.startDate <= b.endDate, { message: 'startDate must not be after endDate', path: ['endDate'] })
    .refine((b) => !spotLeverageProblem(b.marketType, b.leverage), { message: SPOT_LEVERAGE_MESSAGE, path: ['leverage'] });
}

export const CreateBacktestBody = refineRun(z.strictObject(RunFields));

export const RunError = z.object({ code: z.string(), message: z.string() }).nullable();

export const BacktestSummary = z.object({
  id: BacktestId,
  strategyId: StrategyId,
  strategyVersion: z.number().int(),
  status: BacktestStatus,
  progress: z.number().min(0).max(1),
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
  dataSource: z.string().nullable(),
  funding: z.boolean().meta({ description: 'Whether the run pays funding: asked for (the default) and LINEAR. Always false for SPOT.' }),
  fundingSource: z.string().nullable().meta({
    description:
      'Where the funding rates came from (`synthetic`, `csv`, `ccxt:<exchange>`; comma-separated when symbols differ). Null until the run starts, when `funding` is false, or when the market data had no funding rates for any symbol (the run then paid none).',
  }),
  createdAt: Timestamp,
  startedAt: Timestamp.nullable(),
  finishedAt: Timestamp.nullable(),
  error: RunError,
});
export type BacktestSummary = z.infer<typeof BacktestSummary>;

export const EquityPoint = z.object({ time: Timestamp, equity: z.number() });
export const Trade = z.object({
  symbol: z.string(),
  side: z.enum(['long', 'short']),
  entryTime: Timestamp,
  entryPrice: z.number(),
  exitTime: Timestamp,
  exitPrice: z.number(),
  quantity: z.number(),
  pnl: z.number().meta({ description: 'Net of fees and funding' }),
  fees: z.number(),
  funding: z
    .number()
    .meta({ description: 'Funding paid over the trade (negative: received); 0 on SPOT, with funding off, and on runs made before funding existed' }),
  exitReason: z.string().optional(),
});

const MetricValues = {
  totalReturn: z.number().nullable(),
  cagr: z.number().nullable(),
  maxDrawdown: z.number().nullable(),
  maxDrawdownDuration: z.number().nullable().meta({ description: 'Longest drawdown, in milliseconds' }),
  sharpe: z.number().nullable(),
  sortino: z.number().nullable(),
  calmar: z.number().nullable(),
  winRate: z.number().nullable(),
  profitFactor: z.number().nullable(),
  expectancy: z.number().nullable(),
  tradeCount: z.number().int(),
  exposure: z.number().nullable(),
  feesPaid: z.number(),
  fundingPaid: z.number().meta({ description: 'Funding paid over the run, net of funding received' }),
  buyAndHoldReturn: z.number().nullable(),
};
export const SymbolMetrics = z.object(MetricValues);
export const Metrics = z.object({ ...MetricValues, perSymbol: z.record(z.string(), SymbolMetrics) });

/** Most trades `GET /api/backtests/:id` includes; every stored trade is at `GET /api/backtests/:id/trades`. */
export const DETAIL_TRADES = 1_000;
/** Most trades one run stores unless configured otherwise (`createStratbox({ maxBacktestTrades })`). */
export const DEFAULT_MAX_BACKTEST_TRADES = 10_000;

export const BacktestDetail = BacktestSummary.extend({
  equityCurve: z.array(EquityPoint).nullable(),
  trades: z
    .array(Trade)
    .nullable()
    .meta({
      description: `The first ${DETAIL_TRADES.toLocaleString('en')} stored trades, in the order of \`GET /api/backtests/:id/trades\` (by entry time); page through all of them there. Null until completed.`,
    }),
  tradeCount: z.number().int().nullable().meta({ description: 'Trades the run made in all (as `metrics.tradeCount`). Null until completed.' }),
  storedTradeCount: z.number().int().nullable().meta({
    description: 'Trades stored and served by `GET /api/backtests/:id/trades`: all of them, or the first ones up to the per-run cap. Null until completed.',
  }),
  tradesTruncated: z.boolean().nullable().meta({
    description:
      'True when the run made more trades than the per-run cap stores (`storedTradeCount < tradeCount`); metrics still cover every trade. Null until completed.',
  }),
  metrics: Metrics.nullable(),
});
export type BacktestDetail = z.infer<typeof BacktestDetail>;

/** Most trades one page of `GET /api/backtests/:id/trades` may hold: a run's stored trades in two pages (a chart marks them all). */
export const MAX_TRADES_PAGE = 5_000;

export const ListBacktestTradesQuery = z.strictObject({
  ...PageQuery,
  limit: queryInteger()
    .min(1)
    .max(MAX_TRADES_PAGE)
    .optional()
    .meta({
      description: `Page size, 1 to ${MAX_TRADES_PAGE.toLocaleString('en')} (default 50): more than other lists, so that a client can mark every trade of a run in a few requests`,
    }),
});
export const BacktestTradeList = z.object({ trades: z.array(Trade), nextCursor: NextCursor });

export const ListBacktestsQuery = z.strictObject({
  strategyId: StrategyId.optional(),
  status: BacktestStatus.optional(),
  ...PageQuery,
});
export const BacktestList = z.object({ backtests: z.array(BacktestSummary), nextCursor: NextCursor });

/** Data of an event on channel `backtest:<id>:progress`. */
export const BacktestProgressEvent = z.object({
  backtestId: BacktestId,
  status: BacktestStatus,
  progress: z.number().min(0).max(1),
  processedBars: z.number().int(),
  totalBars: z.number().int(),
});

/**
 * Most simulated trades (`runs` × the backtest's stored trades) one Monte Carlo request may take:
 * about a quarter of a second of CPU on a current machine, a second on a slow one.
 */
export const MONTE_CARLO_MAX_STEPS = 20_000_000;
/** Most paths one Monte Carlo request may draw. */
export const MONTE_CARLO_MAX_RUNS = 10_000;

export const MonteCarloMethod = z.enum(['shuffle', 'bootstrap']);

/** Body of `POST /api/backtests/:id/monte-carlo`; every field has a default, and the body may be left out. */
export const MonteCarloBody = z
  .strictObject({
    runs: z
      .number()
      .int()
      .min(1)
      .max(MONTE_CARLO_MAX_RUNS)
      .default(1_000)
      .meta({
        description: `Paths to draw, 1-${MONTE_CARLO_MAX_RUNS.toLocaleString('en')}; \`runs\` × the backtest's stored trades may be at most ${MONTE_CARLO_MAX_STEPS.toLocaleString('en')}.`,
      }),
    method: MonteCarloMethod.default('shuffle').meta({
      description:
        "`shuffle`: the trades' returns in a random order, each once (the final return is the same in every run; drawdowns differ). " +
        '`bootstrap`: as many returns as the backtest had trades, drawn at random with replacement.',
    }),
    seed: z.number().int().min(0).max(4_294_967_295).default(1).meta({ description: 'The same seed (and body) gives the same answer.' }),
    ruinThreshold: z.number().gt(0).max(1).default(0.5).meta({
      description:
        'The fraction of the starting equity whose loss counts as ruin, in (0, 1]: a run is ruined when its equity is at or below `1 - ruinThreshold`.',
    }),
  })
  .prefault({});

/** Percentiles (linear interpolation between order statistics, as numpy's default) and the mean of a value over the runs. */
export const MonteCarloDistribution = z.object({
  p5: z.number(),
  p25: z.number(),
  p50: z.number(),
  p75: z.number(),
  p95: z.number(),
  mean: z.number(),
});

/**
 * Answer of `POST /api/backtests/:id/monte-carlo`: the distributions over the runs of the final
 * return (final equity over starting equity, minus 1), the max drawdown (largest fall from a
 * running peak, as a fraction of that peak) and the longest drawdown (most consecutive trades
 * after which the equity was below an earlier peak).
 */
export const MonteCarloResult = z.object({
  backtestId: BacktestId,
  method: MonteCarloMethod,
  runs: z.number().int(),
  seed: z.number().int(),
  trades: z.number().int().meta({
    description:
      'Returns in each path: one per stored trade, fewer when the equity of the backtest reached 0 (the trades after it are left out). 0: every value is 0.',
  }),
  ruinThreshold: z.number(),
  finalReturn: MonteCarloDistribution,
  maxDrawdown: MonteCarloDistribution,
  longestDrawdown: MonteCarloDistribution,
  probabilityOfRuin: z.number().min(0).max(1).meta({ description: 'Share of runs whose equity was at or below `1 - ruinThreshold` after some trade.' }),
});
export type MonteCarloResult = z.infer<typeof MonteCarloResult>;
