import type { z } from 'zod';
import type { Deployment, LogEntry, Order } from '@stratbox/contract';
import type { DeploymentLogRecord, DeploymentRecord, OrderRecord } from '../ports/store.js';

/** A deployment as the API returns it (the record without its owner). */
export function toDeploymentView(d: DeploymentRecord): Deployment {
  return {
    id: d.id,
    strategyId: d.strategyId,
    strategyVersion: d.strategyVersion,
    credentialId: d.credentialId,
    symbols: [...d.symbols],
    params: { ...d.params },
    status: d.status,
    error: d.error === null ? null : { code: d.error.code, message: d.error.message },
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    startedAt: d.startedAt,
    stoppedAt: d.stoppedAt,
    risk: d.risk ?? null,
    leverage: d.leverage ?? null,
    marginMode: d.marginMode ?? null,
    halt: d.halt ?? null,
    preflight: d.preflight ?? null,
    reconciliation: d.reconciliation ?? null,
  };
}

/** An order as channel `deployment:<id>:orders` carries it (docs/api-contract.md). */
export function toOrderView(o: OrderRecord): z.infer<typeof Order> {
  return {
    id: o.id,
    exchangeOrderId: o.exchangeOrderId,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    quantity: o.quantity,
    price: o.type === 'stop' ? o.stopPrice : o.price,
    status: o.status,
    filledQuantity: o.filledQuantity,
    averagePrice: o.averagePrice,
    fee: o.fee,
    updatedAt: o.updatedAt,
  };
}

/** A log line as `GET /api/deployments/:id/logs` returns it. */
export function toLogEntry(e: DeploymentLogRecord): z.infer<typeof LogEntry> {
  return { timestamp: e.timestamp, level: e.level, message: e.message };
}
