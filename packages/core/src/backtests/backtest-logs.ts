import type { BacktestLogRecord, BacktestRecord, DeploymentLogLevel, StoreRepositories } from '../ports/store.js';
import type { StrategyLogLine } from '../ports/strategy-runner.js';

/*
 * A backtest's log: the lines its strategy wrote (`ctx.log`, `console`), kept when the run ends
 * and served by `GET /api/backtests/:id/logs`. The sandbox bounds them (its log limit: past it
 * the run fails with LOG_LIMIT, keeping the lines written before).
 */

const LEVELS: ReadonlySet<string> = new Set<DeploymentLogLevel>(['debug', 'info', 'warn', 'error']);

/** Longest line kept, as a deployment's log (the sandbox already cuts lines at 2,000 characters). */
const MAX_LINE = 4000;

/** An epoch-ms time as ISO 8601, or null when it is not a time a Date can hold. */
function isoOf(time: number): string | null {
  const date = new Date(time);
  return Number.isFinite(date.getTime()) ? date.toISOString() : null;
}

/**
 * The lines a run handed back, as the backtest keeps them, in the order written: the candle
 * time as an ISO timestamp (a line without a valid time takes the previous line's), the level
 * (`info` when absent or unknown), the message cut at `MAX_LINE` characters.
 */
export function toBacktestLogRecords(lines: readonly StrategyLogLine[] | undefined): BacktestLogRecord[] {
  const records: BacktestLogRecord[] = [];
  let previous = new Date(0).toISOString();
  for (const line of lines ?? []) {
    const timestamp = isoOf(line.time) ?? previous;
    previous = timestamp;
    const message = String(line.message);
    records.push({
      timestamp,
      level: line.level !== undefined && LEVELS.has(line.level) ? line.level : 'info',
      message: message.length > MAX_LINE ? `${message.slice(0, MAX_LINE)}...` : message,
    });
  }
  return records;
}

/** The lines a failed run's error carries (`logs`, as the StrategyRunner port says), or none. */
export function logLinesOf(error: unknown): StrategyLogLine[] {
  const logs = (error as { logs?: unknown } | null)?.logs;
  if (!Array.isArray(logs)) return [];
  return logs.filter((l): l is StrategyLogLine => typeof l === 'object' && l !== null && typeof l.time === 'number' && typeof l.message === 'string');
}

/**
 * Whether the backtest ran a strategy its owner bought on the marketplace (a run-only licence):
 * the strategy is not the owner's, and a completed purchase of the owner's licenses it. A
 * backtest of the owner's own strategy, deleted since, is not one.
 */
export async function ranPurchasedStrategy(repos: Pick<StoreRepositories, 'strategies' | 'purchases'>, record: BacktestRecord): Promise<boolean> {
  if (await repos.strategies.findById(record.userId, record.strategyId)) return false;
  return (await repos.purchases.listCompletedForStrategy(record.userId, record.strategyId)).length > 0;
}
