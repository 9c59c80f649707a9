import type { BacktestStatus } from '@stratbox/client';

/** A backtest's status as a word with a colour (the word carries the meaning). */
export function StatusBadge({ status }: { status: BacktestStatus }) {
  return <span className={`badge badge-${status}`}>{status}</span>;
}
