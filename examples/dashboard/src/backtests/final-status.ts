import type { BacktestStatus } from '@stratbox/client';

/** Statuses after which a run changes no more (its progress channel's last event carries one). */
export function isFinished(status: BacktestStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
