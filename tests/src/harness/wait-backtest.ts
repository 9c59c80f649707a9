import type { StratboxClient } from '@stratbox/client';
import type { BacktestDetail } from '@stratbox/core/contract';
import { waitFor } from './deferred.js';

/** Polls a backtest until it is no longer queued or running, and returns its detail. */
export function waitFinished(client: StratboxClient, id: string, timeoutMs = 60_000): Promise<BacktestDetail> {
  return waitFor(
    `backtest ${id} to finish`,
    async () => {
      const b = await client.backtests.get({ params: { id } });
      return ['queued', 'running'].includes(b.status) ? null : b;
    },
    timeoutMs,
  );
}
