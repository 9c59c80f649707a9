import { z } from 'zod';
import { Timestamp } from './common.js';
import { DeploymentId } from './ids.js';

/**
 * The drift report (docs/drift.md): how a live or paper deployment differs from a backtest of
 * the same strategy version and parameters replayed over the very candles the deployment saw,
 * and why. Computed by the platform, stored, and never editable.
 */

/** `GET /api/deployments/:id/drift?from=&to=`: an optional window (default: the whole recording). */
export const DriftQuery = z.strictObject({
  from: Timestamp.optional().meta({ description: 'Start of the window (inclusive); default: the first recorded candle' }),
  to: Timestamp.optional().meta({ description: 'End of the window (exclusive); default: after the last recorded candle' }),
});

/** Per-deployment thresholds that raise a `deployment.drift` event when a report crosses them. */
export const DriftThresholds = z
  .object({
    minCorrelation: z.number().min(-1).max(1).nullable().meta({ description: 'Daily returns correlation below this raises an alert (default 0.8; null: off)' }),
    maxDtw: z.number().min(0).nullable().meta({ description: 'Annualized DTW distance above this raises an alert (default 0.2; null: off)' }),
    maxSlippageRatio: z
      .number()
      .min(0)
      .nullable()
      .meta({ description: "p95 slippage above the model's slippage times this raises an alert (default 5; null: off)" }),
    parityMiss: z.boolean().meta({ description: 'Any decision-parity miss raises an alert (default true)' }),
  })
  .strict();
export type DriftThresholds = z.infer<typeof DriftThresholds>;

/** `PUT /api/deployments/:id/drift/alerts`: replaces the thresholds (fields omitted keep their defaults). */
export const SetDriftThresholdsBody = DriftThresholds.partial().strict();

export const DriftCause = z.enum(['restart', 'missed_candle', 'data', 'order_outcome', 'unknown']);

/** A threshold a report crossed. */
export const DriftBreach = z.object({
  metric: z.enum(['correlation', 'dtw', 'slippage', 'parity']),
  value: z.number(),
  limit: z.number(),
});

const Fill = z.object({
  time: Timestamp,
  price: z.number(),
  quantity: z.number(),
  fee: z.number(),
});

/** One trade (fill) of either side, paired where both made it. */
export const DriftTradeMatch = z.object({
  kind: z
    .enum(['matched', 'missed', 'extra'])
    .meta({ description: '`missed`: the replay made it, the live run did not; `extra`: the live run made it, the replay did not' }),
  symbol: z.string(),
  side: z.enum(['buy', 'sell']),
  replay: Fill.nullable(),
  live: Fill.extend({ orderId: z.string() }).nullable(),
  offsetMs: z.number().nullable().meta({ description: 'Live fill time minus the replay fill time (matched only)' }),
  slippageBps: z
    .number()
    .nullable()
    .meta({ description: "The live price against the replay's price, in basis points, positive when worse for the account (matched only)" }),
});

export const DriftSlippage = z.object({
  count: z.number().int(),
  meanBps: z.number().nullable(),
  p50Bps: z.number().nullable(),
  p95Bps: z.number().nullable(),
  modelBps: z.number().meta({ description: "The model's own slippage, in basis points" }),
  histogram: z.array(z.object({ fromBps: z.number(), toBps: z.number(), count: z.number().int() })),
});

/** The P&L waterfall from the replay's P&L to the live P&L: its parts sum to `livePnl - replayPnl`. */
export const DriftWaterfall = z.object({
  replayPnl: z.number(),
  missedTrades: z.number(),
  extraTrades: z.number(),
  slippage: z.number(),
  fees: z.number(),
  funding: z.number(),
  downtime: z.number(),
  remainder: z.number(),
  livePnl: z.number(),
});

export const DriftReport = z.object({
  deploymentId: DeploymentId,
  strategyVersion: z.number().int(),
  window: z.object({ from: Timestamp, to: Timestamp }),
  computedAt: Timestamp,
  candles: z.object({
    recorded: z.number().int().meta({ description: 'Closed candles delivered to the strategy in the window' }),
    downtime: z.number().int().meta({ description: 'Candles of the window the deployment did not process (it was down)' }),
  }),
  runs: z.array(z.object({ startedAt: Timestamp, startEquity: z.number().nullable(), resumed: z.boolean() })),
  parity: z.object({
    liveIntents: z.number().int(),
    matched: z.number().int(),
    share: z.number().nullable().meta({ description: 'Matched / live intents (null with no live intent)' }),
    firstDivergence: z.object({ time: Timestamp, symbol: z.string(), cause: DriftCause, detail: z.string() }).nullable(),
  }),
  trades: z.object({
    matched: z.number().int(),
    missed: z.number().int(),
    extra: z.number().int(),
    meanOffsetMs: z.number().nullable(),
    list: z.array(DriftTradeMatch).meta({ description: 'At most 500, oldest first' }),
  }),
  costs: z.object({
    slippage: DriftSlippage,
    fees: z.object({ live: z.number(), replay: z.number(), gap: z.number() }),
    funding: z.object({ live: z.number().nullable(), replay: z.number(), gap: z.number().nullable() }),
  }),
  equity: z.object({
    points: z
      .array(z.object({ time: Timestamp, live: z.number().nullable(), replay: z.number() }))
      .meta({ description: 'Both curves, downsampled to at most 500 points' }),
    correlation: z.number().nullable().meta({ description: 'Pearson correlation of daily returns (null with fewer than 3 days)' }),
    dtw: z.number().nullable().meta({ description: 'Annualized DTW distance of the normalized equity curves' }),
    trackingError: z.number().nullable().meta({ description: 'Annualized standard deviation of the daily return differences' }),
    finalDifference: z.number().meta({ description: 'Live final equity minus the replay final equity' }),
    maxDrawdown: z.object({ live: z.number(), replay: z.number(), difference: z.number() }),
  }),
  waterfall: DriftWaterfall,
  alerts: z.object({ thresholds: DriftThresholds, breached: z.array(DriftBreach) }),
  replay: z.object({ cpuMs: z.number().meta({ description: 'CPU time of the replay (metered as compute)' }) }),
});
export type DriftReport = z.infer<typeof DriftReport>;
