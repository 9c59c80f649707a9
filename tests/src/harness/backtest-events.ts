import { randomBytes } from 'node:crypto';
import type { BacktestChannelResolver } from '@stratbox/core';
import type { BacktestProgressData } from '@stratbox/core/contract';

/**
 * A stand-in for the backtest service until backtests are in the Store: backtests owned by a
 * user, a channel resolver that grants a backtest to its owner only (and hands out the final
 * event of a finished one), and the progress events of a run.
 */
export function createFakeBacktests() {
  const owners = new Map<string, string>();
  const finals = new Map<string, BacktestProgressData>();
  const resolver: BacktestChannelResolver = async (userId, backtestId) => {
    if (owners.get(backtestId) !== userId) return null;
    const final = finals.get(backtestId);
    return final ? { final } : {};
  };
  return {
    resolver,
    /** Registers a backtest of `userId` and returns its id. */
    create(userId: string): string {
      const id = `bt_${randomBytes(16).toString('base64url')}`;
      owners.set(id, userId);
      return id;
    },
    /** The i-th of n progress events; the last one is `completed`, and is remembered as the final state. */
    progress(backtestId: string, processedBars: number, totalBars: number, status?: BacktestProgressData['status']): BacktestProgressData {
      const event: BacktestProgressData = {
        backtestId,
        status: status ?? (processedBars >= totalBars ? 'completed' : 'running'),
        progress: Math.min(1, processedBars / totalBars),
        processedBars,
        totalBars,
      };
      if (['completed', 'failed', 'cancelled'].includes(event.status)) finals.set(backtestId, event);
      return event;
    },
  };
}
