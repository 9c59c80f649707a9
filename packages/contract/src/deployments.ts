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
});
export const LogList = z.array(LogEntry);

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
