import { z } from 'zod';
import { MarketSymbol, NextCursor, PageQuery, ParamMap, Timestamp, queryInteger } from './common.js';
import { RunError } from './backtests.js';
import { CredentialId, DeploymentId, ListingId, OrderId, StrategyId } from './ids.js';

/**
 * `halted`: a risk limit was breached or reconciliation found the account differs from what the
 * deployment's own fills explain. It places no new entries; it still counts as active (holds its
 * live bot slot and its symbols) until its owner stops or restarts it.
 */
export const DeploymentStatus = z.enum(['starting', 'running', 'halted', 'stopping', 'stopped', 'failed']);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;
/** Statuses in which a deployment counts as active (holds a live bot slot, blocks strategy deletion). */
export const ACTIVE_DEPLOYMENT_STATUSES = ['starting', 'running', 'halted', 'stopping'] as const satisfies readonly DeploymentStatus[];

/**
 * Risk limits of one deployment, each optional. A breach moves it to `halted`: entry orders are
 * cancelled, and the position is closed (`onBreach: 'close'`, the default) or kept (`'keep'`).
 */
export const RiskLimits = z.strictObject({
  maxDrawdown: z
    .number()
    .gt(0)
    .lt(1)
    .optional()
    .meta({ description: 'Halt when equity falls this fraction below its peak since the deployment started (0.2 = 20 %)' }),
  dailyLossLimit: z.number().gt(0).lt(1).optional().meta({ description: "Halt when equity falls this fraction below the day's starting equity (UTC day)" }),
  maxPositionNotional: z
    .number()
    .positive()
    .optional()
    .meta({ description: 'Largest position per symbol, as quantity x price in the settle currency; an entry that would pass it is refused' }),
  maxOrdersPerMinute: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .meta({ description: 'Halt when the strategy asks for more orders than this within a minute' }),
  onBreach: z
    .enum(['close', 'keep'])
    .default('close')
    .meta({ description: "On a breach: close the position with a market order ('close') or leave it ('keep')" }),
});
export type RiskLimits = z.output<typeof RiskLimits>;

/** The limit (or check) a halted deployment breached. */
export const HaltReason = z.enum(['maxDrawdown', 'dailyLossLimit', 'maxPositionNotional', 'maxOrdersPerMinute', 'positionMismatch']);
export type HaltReason = z.infer<typeof HaltReason>;

/** Why and when a deployment was halted, with the figures. */
export const DeploymentHalt = z.object({
  reason: HaltReason,
  message: z.string(),
  value: z.number().nullable().meta({ description: 'The measured figure (a drawdown fraction, a notional, orders per minute); null when not a number' }),
  limit: z.number().nullable().meta({ description: 'The configured limit it passed; null for a reconciliation halt' }),
  at: Timestamp,
});
export type DeploymentHalt = z.infer<typeof DeploymentHalt>;

/** One pre-flight check of the exchange account, run before a deployment starts or resumes. */
export const PreflightCheck = z.object({
  name: z.string().meta({ example: 'authentication' }),
  ok: z.boolean(),
  message: z.string(),
});
/** What the pre-flight checks found the last time they ran. */
export const PreflightReport = z.object({
  ok: z.boolean(),
  checkedAt: Timestamp,
  clockOffsetMs: z.number().nullable().meta({ description: "The exchange's clock minus ours, in ms, when measured" }),
  checks: z.array(PreflightCheck),
});
export type PreflightReport = z.infer<typeof PreflightReport>;

/** A difference between the store and the exchange that reconciliation found. */
export const ReconciliationMismatch = z.object({
  kind: z.enum(['unknown_order', 'missing_order', 'unknown_outcome', 'position', 'balance', 'fill']),
  symbol: z.string().nullable(),
  orderId: z.string().nullable(),
  message: z.string(),
  at: Timestamp,
});
/** The state of a deployment's continuous reconciliation with its exchange account. */
export const ReconciliationReport = z.object({
  lastRunAt: Timestamp.nullable(),
  runs: z.number().int(),
  /** The most recent mismatches, newest last (at most 20). */
  mismatches: z.array(ReconciliationMismatch),
  stream: z
    .enum(['connected', 'polling', 'none'])
    .meta({ description: 'How order updates arrive: a private stream, REST polling while the stream is down, or REST only' }),
});
export type ReconciliationReport = z.infer<typeof ReconciliationReport>;

/** Leverage a deployment sets on each of its perpetual symbols (pre-flight check `leverage`). */
export const DeploymentLeverage = z.number().int().min(1).max(125);
/** Margin mode a deployment sets on each of its perpetual symbols (pre-flight check `leverage`). */
export const DeploymentMarginMode = z.enum(['isolated', 'cross']);
export type DeploymentMarginMode = z.infer<typeof DeploymentMarginMode>;

export const CreateDeploymentBody = z.strictObject({
  strategyId: z.union([StrategyId, ListingId]).meta({ description: 'Your strategy, or a listing you bought (run-only licence: the source stays hidden)' }),
  credentialId: CredentialId,
  symbols: z.array(MarketSymbol).min(1).max(20),
  params: ParamMap.default({}),
  risk: RiskLimits.optional().meta({ description: 'Risk limits; none by default' }),
  leverage: DeploymentLeverage.optional().meta({
    description: "Leverage set on each symbol before the strategy opens (perpetuals only, not on the paper exchange); omit to keep the account's",
  }),
  marginMode: DeploymentMarginMode.optional().meta({
    description: "Margin mode set on each symbol before the strategy opens (perpetuals only, not on the paper exchange); omit to keep the account's",
  }),
});

/** `POST /api/deployments/:id/restart`: optionally new risk limits (omit to keep the current ones, `null` to remove them). */
export const RestartDeploymentBody = z
  .strictObject({
    risk: RiskLimits.nullable().optional(),
  })
  .optional();

export const Deployment = z.object({
  id: DeploymentId,
  strategyId: StrategyId,
  strategyVersion: z.number().int(),
  credentialId: CredentialId,
  symbols: z.array(z.string()),
  params: z.record(z.string(), z.string()),
  status: DeploymentStatus,
  error: RunError,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  startedAt: Timestamp.nullable(),
  stoppedAt: Timestamp.nullable(),
  risk: RiskLimits.nullable().meta({ description: 'The risk limits in force; null when none' }),
  leverage: DeploymentLeverage.nullable().meta({ description: "The leverage set on each symbol before start; null: the account's is kept" }),
  marginMode: DeploymentMarginMode.nullable().meta({ description: "The margin mode set on each symbol before start; null: the account's is kept" }),
  halt: DeploymentHalt.nullable().meta({ description: 'When `halted`: which limit was breached, the figures, and when' }),
  preflight: PreflightReport.nullable().meta({ description: 'The last pre-flight checks; null before they first ran' }),
  reconciliation: ReconciliationReport.nullable().meta({ description: 'Continuous reconciliation with the exchange; null before it first ran' }),
});
export type Deployment = z.infer<typeof Deployment>;

export const ListDeploymentsQuery = z.strictObject({ ...PageQuery });
export const DeploymentList = z.object({ deployments: z.array(Deployment), nextCursor: NextCursor });

export const LogLevel = z.enum(['debug', 'info', 'warn', 'error']);
export const LogEntry = z.object({ timestamp: Timestamp, level: LogLevel, message: z.string() });
export const LogsQuery = z.strictObject({
  since: Timestamp.optional().meta({ description: 'Only entries at or after this time' }),
  limit: queryInteger().min(1).max(1000).optional().meta({ description: 'At most this many entries (default 200), oldest first' }),
  cursor: z.string().min(1).max(512).optional().meta({ description: 'The `X-Next-Cursor` response header of the previous page: entries after its last one' }),
});
/** The SPEC's bare array; the cursor of the next page travels in the `X-Next-Cursor` response header. */
export const LogList = z.array(LogEntry);
/** Response header of `GET /api/deployments/:id/logs` holding the cursor of the next page (absent on the last page). */
export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';
/** One page of a deployment's log as the client's `deployments.logPage` returns it (header and body together). */
export const LogPage = z.object({ logs: LogList, nextCursor: NextCursor });
export type LogPage = z.infer<typeof LogPage>;

export const OrderSide = z.enum(['buy', 'sell']);
export const OrderType = z.enum(['market', 'limit', 'stop']);
export const OrderStatus = z.enum(['pending', 'open', 'partially_filled', 'filled', 'cancelled', 'rejected']);

export const Order = z.object({
  id: OrderId,
  exchangeOrderId: z.string().nullable(),
  symbol: z.string(),
  side: OrderSide,
  type: OrderType,
  quantity: z.number(),
  price: z.number().nullable(),
  status: OrderStatus,
  filledQuantity: z.number(),
  averagePrice: z.number().nullable(),
  fee: z.number(),
  updatedAt: Timestamp,
});

/** Data of an event on channel `deployment:<id>:orders`. */
export const DeploymentOrderEvent = z.object({ deploymentId: DeploymentId, order: Order });

export const ListDeploymentOrdersQuery = z.strictObject({ ...PageQuery });
/** A deployment's orders, newest first (by creation), each as channel `deployment:<id>:orders` carries it. */
export const DeploymentOrderList = z.object({ orders: z.array(Order), nextCursor: NextCursor });
export type DeploymentOrderList = z.infer<typeof DeploymentOrderList>;

/** An open position of one of the deployment's symbols on its exchange account, as the exchange reports it. */
export const DeploymentPosition = z.object({
  symbol: z.string(),
  side: z.enum(['long', 'short']),
  quantity: z.number().meta({ description: "> 0, in the market's amount unit" }),
  entryPrice: z.number().nullable(),
  markPrice: z.number().nullable(),
  unrealizedPnl: z.number().nullable().meta({ description: 'In the settle (quote) currency, as the exchange reports it' }),
  leverage: z.number().nullable(),
  liquidationPrice: z.number().nullable(),
});

/** Realized P&L of the deployment's own fills in one symbol. */
export const DeploymentSymbolPnl = z.object({
  symbol: z.string(),
  realizedPnl: z.number().meta({ description: "Closed P&L of the deployment's fills (average cost), less every fee they paid" }),
  fees: z.number().meta({ description: "Fees of the deployment's fills in this symbol" }),
  filledOrders: z.number().int().meta({ description: 'Orders of the deployment with a fill in this symbol' }),
});

export const DeploymentPositions = z.object({
  deploymentId: DeploymentId,
  status: DeploymentStatus,
  asOf: Timestamp.meta({ description: 'When this answer was made' }),
  live: z.boolean().meta({
    description:
      'True when `positions` were read from the exchange now; false for a stopped deployment (its stop closed them) or one whose credential was deleted: `positions` is then empty',
  }),
  positions: z.array(DeploymentPosition),
  realizedPnl: z.number().meta({ description: 'Sum of `bySymbol[].realizedPnl` (net of fees)' }),
  fees: z.number(),
  unrealizedPnl: z.number().meta({ description: "Sum of the positions' `unrealizedPnl` (unknown ones count 0)" }),
  bySymbol: z.array(DeploymentSymbolPnl).meta({ description: "Every symbol of the deployment, in the deployment's order" }),
});
export type DeploymentPositions = z.infer<typeof DeploymentPositions>;
