import { z } from 'zod';
import { MarketSymbol, NextCursor, PageQuery, ParamMap, Timestamp, queryInteger } from './common.js';
import { RunError } from './backtests.js';
import { CredentialId, DeploymentId, ListingId, OrderId, StrategyId } from './ids.js';

export const DeploymentStatus = z.enum(['starting', 'running', 'stopping', 'stopped', 'failed']);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;
/** Statuses in which a deployment counts as active (holds a live bot slot, blocks strategy deletion). */
export const ACTIVE_DEPLOYMENT_STATUSES = ['starting', 'running', 'stopping'] as const satisfies readonly DeploymentStatus[];

export const CreateDeploymentBody = z.strictObject({
  strategyId: z.union([StrategyId, ListingId]).meta({ description: 'Your strategy, or a listing you bought (run-only licence: the source stays hidden)' }),
  credentialId: CredentialId,
  symbols: z.array(MarketSymbol).min(1).max(20),
  params: ParamMap.default({}),
});

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
