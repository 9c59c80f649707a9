import { RunTargetLink } from '../marketplace/run-target-link.js';
import type { RunTarget } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import type { RunStatus } from '../ui/final-status.js';
import { formatTime } from '../ui/format.js';
import type { Column } from '../ui/paged-table.js';
import { StatusBadge } from '../ui/status-badge.js';

/*
 * The columns the lists of runs (backtests, optimizations, deployments) share, for `PagedTable`.
 */

/** When it was created, linking to its page, `page` (the row's header). */
export function createdColumn<T extends { id: string; createdAt: string }>(page: 'backtest' | 'optimization' | 'deployment'): Column<T> {
  return { key: 'created', header: 'Created', cell: (item) => <Link to={{ name: page, id: item.id }}>{formatTime(item.createdAt)}</Link> };
}

/** The strategy it runs and its version: the user's own by name, a bought one by its listing's. */
export function strategyColumn<T extends { strategyId: string; strategyVersion: number }>(targetOf: (strategyId: string) => RunTarget): Column<T> {
  return {
    key: 'strategy',
    header: 'Strategy',
    cell: (item) => (
      <>
        <RunTargetLink target={targetOf(item.strategyId)} /> v{item.strategyVersion}
      </>
    ),
  };
}

/** A backtest's or optimization's status, with its share done while it runs. */
export function runStatusColumn<T extends { status: RunStatus; progress: number }>(): Column<T> {
  return {
    key: 'status',
    header: 'Status',
    cell: (item) => (
      <>
        <StatusBadge status={item.status} />
        {item.status === 'running' ? ` ${Math.round(item.progress * 100)}%` : ''}
      </>
    ),
  };
}
