import type { DeploymentHalt } from '@stratbox/contract';
import { recordNotificationEvent } from '../notifications/record-event.js';
import type { DeploymentRecord, OrderRecord, StoreRepositories } from '../ports/store.js';

/*
 * The notification events of deployments, one builder per event. Each writes to the outbox
 * through the repositories it is given: pass those of the transaction that makes the change the
 * event reports. Nothing here carries a credential, a strategy's source or its log.
 */

type Outbox = Pick<StoreRepositories, 'notificationEvents'>;
type Deployment = Pick<DeploymentRecord, 'id' | 'userId' | 'strategyId' | 'strategyVersion' | 'symbols'>;

const subject = (d: Deployment) => ({ kind: 'deployment' as const, id: d.id });

/**
 * `deployment.started`: it passed pre-flight and runs. `startedAt` (the start's time) makes the
 * event one of a kind: a start moved twice writes it once. A resume after a restart of the
 * service gives the time of the resume.
 */
export function recordDeploymentStarted(tx: Outbox, d: Deployment, startedAt: string, resumed = false) {
  return recordNotificationEvent(tx, {
    type: 'deployment.started',
    userId: d.userId,
    subject: subject(d),
    summary: `Deployment ${d.id} ${resumed ? 'resumed after a restart of the service' : 'started'}: ${d.symbols.join(', ')}, strategy version ${d.strategyVersion}`,
    data: { deploymentId: d.id, strategyId: d.strategyId, strategyVersion: d.strategyVersion, symbols: [...d.symbols] },
    time: startedAt,
    dedupeKey: `deployment.started:${d.id}:${startedAt}`,
  });
}

/** `deployment.failed`, once per failure (keyed by the time it failed). */
export function recordDeploymentFailed(tx: Outbox, d: Deployment, error: { code: string; message: string }, at: string) {
  return recordNotificationEvent(tx, {
    type: 'deployment.failed',
    userId: d.userId,
    subject: subject(d),
    summary: `Deployment ${d.id} failed (${error.code}): ${error.message}`,
    data: { deploymentId: d.id, error: { code: error.code, message: error.message } },
    time: at,
    dedupeKey: `deployment.failed:${d.id}:${at}`,
  });
}

/** `deployment.stopped`, once per stop (keyed by the time it stopped). */
export function recordDeploymentStopped(tx: Outbox, d: Deployment, at: string, closedPositions: number) {
  return recordNotificationEvent(tx, {
    type: 'deployment.stopped',
    userId: d.userId,
    subject: subject(d),
    summary: `Deployment ${d.id} stopped (${closedPositions} position(s) closed)`,
    data: { deploymentId: d.id },
    time: at,
    dedupeKey: `deployment.stopped:${d.id}:${at}`,
  });
}

/** `deployment.halted` with the halt's figures, once per halt (keyed by `halt.at`). */
export function recordDeploymentHalted(tx: Outbox, d: Deployment, halt: DeploymentHalt) {
  return recordNotificationEvent(tx, {
    type: 'deployment.halted',
    userId: d.userId,
    subject: subject(d),
    summary: `Deployment ${d.id} halted (${halt.reason}): ${halt.message}`,
    data: { deploymentId: d.id, halt },
    time: halt.at,
    dedupeKey: `deployment.halted:${d.id}:${halt.at}`,
  });
}

/** `deployment.order.filled` for an order that filled completely, once per order. */
export function recordOrderFilled(tx: Outbox, order: OrderRecord) {
  const price = order.averagePrice === null ? '' : ` at ${order.averagePrice}`;
  return recordNotificationEvent(tx, {
    type: 'deployment.order.filled',
    userId: order.userId,
    subject: { kind: 'deployment', id: order.deploymentId },
    summary: `Order filled on deployment ${order.deploymentId}: ${order.side} ${order.filledQuantity} ${order.symbol} ${order.type}${price}`,
    data: {
      deploymentId: order.deploymentId,
      order: {
        id: order.id,
        symbol: order.symbol,
        side: order.side,
        type: order.type,
        quantity: order.quantity,
        filledQuantity: order.filledQuantity,
        averagePrice: order.averagePrice,
        fee: order.fee,
      },
    },
    time: order.updatedAt,
    dedupeKey: `deployment.order.filled:${order.id}`,
  });
}

/**
 * `deployment.heartbeat.missed`, the dead-man alert: once per silence, keyed by the deployment
 * and the point the silence is measured from (its last candle's time, or its start).
 */
export function recordHeartbeatMissed(
  tx: Outbox,
  d: Pick<DeploymentRecord, 'id' | 'userId'>,
  silence: { timeframe: string; lastCandleAt: string | null; since: string; missedPeriods: number; at: string },
) {
  const last = silence.lastCandleAt === null ? `since it started at ${silence.since}` : `since the candle of ${silence.lastCandleAt}`;
  return recordNotificationEvent(tx, {
    type: 'deployment.heartbeat.missed',
    userId: d.userId,
    subject: { kind: 'deployment', id: d.id },
    summary: `Deployment ${d.id} processed no ${silence.timeframe} candle for ${silence.missedPeriods} periods (${last})`,
    data: { deploymentId: d.id, timeframe: silence.timeframe, lastCandleAt: silence.lastCandleAt, missedPeriods: silence.missedPeriods },
    time: silence.at,
    dedupeKey: `deployment.heartbeat.missed:${d.id}:${silence.lastCandleAt ?? silence.since}`,
  });
}
