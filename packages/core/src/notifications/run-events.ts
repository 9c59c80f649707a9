import type { BacktestRecord, StoreRepositories } from '../ports/store.js';
import type { OptimizationRecord } from '../ports/store-optimizations.js';
import { recordNotificationEvent } from './record-event.js';

type Outbox = Pick<StoreRepositories, 'notificationEvents'>;

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** A signed percentage for a summary: `+4.20 %`, `-1.05 %`, or `n/a`. */
export function percent(ratio: number | null): string {
  if (ratio === null) return 'n/a';
  const p = ratio * 100;
  return `${p >= 0 ? '+' : ''}${p.toFixed(2)} %`;
}

/**
 * Writes `backtest.completed` or `backtest.failed` for a backtest that just reached that end, in
 * the transaction `tx` that moved it there (a cancelled run gets none). Deduplicated by the run's
 * id, so a redelivered job that finishes the run again writes nothing.
 */
export async function recordBacktestEnd(tx: Outbox, run: BacktestRecord, metrics: Record<string, unknown> | null): Promise<void> {
  const time = run.finishedAt ?? run.createdAt;
  const subject = { kind: 'backtest' as const, id: run.id };
  if (run.status === 'completed') {
    const figures = {
      totalReturn: num(metrics?.totalReturn),
      maxDrawdown: num(metrics?.maxDrawdown),
      sharpe: num(metrics?.sharpe),
      tradeCount: num(metrics?.tradeCount),
    };
    const trades = figures.tradeCount === null ? '' : `, ${figures.tradeCount} trade${figures.tradeCount === 1 ? '' : 's'}`;
    await recordNotificationEvent(tx, {
      type: 'backtest.completed',
      userId: run.userId,
      subject,
      summary: `Backtest ${run.id} completed: ${percent(figures.totalReturn)}${trades}`,
      data: { backtestId: run.id, strategyId: run.strategyId, metrics: figures },
      time,
      dedupeKey: `backtest.completed:${run.id}`,
    });
  } else if (run.status === 'failed') {
    const error = run.error ?? { code: 'INTERNAL', message: 'The backtest failed' };
    await recordNotificationEvent(tx, {
      type: 'backtest.failed',
      userId: run.userId,
      subject,
      summary: `Backtest ${run.id} failed: ${error.code}`,
      data: { backtestId: run.id, strategyId: run.strategyId, error: { code: error.code, message: error.message } },
      time,
      dedupeKey: `backtest.failed:${run.id}`,
    });
  }
}

/**
 * Writes `optimization.completed` or `optimization.failed` for an optimization that just reached
 * that end, in the transaction `tx` that moved it there (a cancelled one gets none), once per
 * optimization.
 */
export async function recordOptimizationEnd(tx: Outbox, run: OptimizationRecord): Promise<void> {
  const time = run.finishedAt ?? run.createdAt;
  const subject = { kind: 'optimization' as const, id: run.id };
  if (run.status === 'completed') {
    const bestScore = num(run.best?.objective);
    await recordNotificationEvent(tx, {
      type: 'optimization.completed',
      userId: run.userId,
      subject,
      summary: `Optimization ${run.id} completed: ${run.trialsDone} trials, best score ${bestScore === null ? 'none' : bestScore.toFixed(4)}`,
      data: { optimizationId: run.id, strategyId: run.strategyId, trialsDone: run.trialsDone, bestScore },
      time,
      dedupeKey: `optimization.completed:${run.id}`,
    });
  } else if (run.status === 'failed') {
    const error = run.error ?? { code: 'INTERNAL', message: 'The optimization failed' };
    await recordNotificationEvent(tx, {
      type: 'optimization.failed',
      userId: run.userId,
      subject,
      summary: `Optimization ${run.id} failed after ${run.trialsDone} trials: ${error.code}`,
      data: { optimizationId: run.id, strategyId: run.strategyId, trialsDone: run.trialsDone, error: { code: error.code, message: error.message } },
      time,
      dedupeKey: `optimization.failed:${run.id}`,
    });
  }
}
