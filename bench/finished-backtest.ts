import type { Stratbox } from '@stratbox/core';

type BacktestInput = Parameters<Stratbox['backtests']['create']>[1];

/** Creates a backtest and polls it until it ends; resolves with its detail if it completed, throws if it did not (or not within `timeoutMs`). */
export async function finishedBacktest(stratbox: Stratbox, userId: string, input: BacktestInput, timeoutMs = 300_000) {
  const created = await stratbox.backtests.create(userId, input);
  let detail = await stratbox.backtests.get(userId, created.id);
  const deadline = Date.now() + timeoutMs;
  while (['queued', 'running'].includes(detail.status) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    detail = await stratbox.backtests.get(userId, created.id);
  }
  if (detail.status !== 'completed') throw new Error(`Backtest ${created.id} ended ${detail.status}`);
  return detail;
}
