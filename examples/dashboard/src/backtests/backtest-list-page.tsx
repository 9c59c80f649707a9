import type { BacktestStatus } from '@stratbox/client';
import { useState } from 'react';
import { CompareButton, ComparePick, useComparePicks } from '../compare/compare-picks.js';
import { useRunTargets } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import { createdColumn, runStatusColumn, strategyColumn } from '../runs/run-columns.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedTable } from '../ui/paged-table.js';
import { usePagedList } from '../ui/use-paged-list.js';

const STATUSES: BacktestStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

/** The user's backtests, newest first, optionally of one strategy or one status. */
export function BacktestListPage({ strategyId }: { strategyId?: string }) {
  const client = useClient();
  const [status, setStatus] = useState<BacktestStatus | ''>('');
  // the strategy column: own strategies by name and page, bought ones by their listing's
  const targetOf = useRunTargets();
  const picks = useComparePicks();
  const list = usePagedList(
    `backtests:${strategyId ?? ''}:${status}`,
    (at, signal) => client.backtests.list({ query: { limit: 50, ...(strategyId ? { strategyId } : {}), ...(status ? { status } : {}), ...at } }, { signal }),
    (page) => page.backtests,
  );

  return (
    <section>
      <div className="page-header">
        <h1>Backtests{strategyId ? ` of ${targetOf(strategyId).name ?? strategyId}` : ''}</h1>
        <Link className="button primary" to={{ name: 'newBacktest', ...(strategyId ? { strategyId } : {}) }}>
          New backtest
        </Link>
      </div>
      <div className="form-row filters">
        <div className="field">
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" value={status} onChange={(e) => setStatus(e.target.value as BacktestStatus | '')}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        {strategyId ? <Link to={{ name: 'backtests' }}>Show every strategy’s backtests</Link> : null}
        <CompareButton picks={picks} />
      </div>
      <PagedTable
        list={list}
        errorTitle="Could not load your backtests"
        loadingLabel="Loading backtests…"
        empty={
          <EmptyState title="No backtests here yet">
            <p>
              <Link to={{ name: 'newBacktest', ...(strategyId ? { strategyId } : {}) }}>Run a backtest</Link> to see how a strategy would have traded.
            </p>
          </EmptyState>
        }
        rowKey={(b) => b.id}
        columns={[
          createdColumn('backtest'),
          strategyColumn(targetOf),
          { key: 'symbols', header: 'Symbols', cell: (b) => b.symbols.join(', ') },
          { key: 'range', header: 'Range', cell: (b) => `${b.startDate} to ${b.endDate}` },
          { key: 'timeframe', header: 'Timeframe', cell: (b) => b.timeframe },
          runStatusColumn(),
          {
            key: 'compare',
            header: 'Compare',
            cell: (b) => (b.status === 'completed' ? <ComparePick picks={picks} id={b.id} label={`the backtest of ${formatTime(b.createdAt)}`} /> : null),
          },
        ]}
      />
    </section>
  );
}
