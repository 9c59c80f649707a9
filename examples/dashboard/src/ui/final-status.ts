import type { BacktestStatus, OptimizationStatus } from '@stratbox/client';

/** The status of a run the service queues and runs to an end: a backtest or an optimization. */
export type RunStatus = BacktestStatus | OptimizationStatus;

/** Statuses after which a run changes no more (its progress channel's last event carries one). */
export function isFinished(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
