import type { BacktestStatus, BacktestSummary } from '@stratbox/client';
import { useState } from 'react';
import { CompareButton, ComparePick, useComparePicks } from '../compare/compare-picks.js';
import { RunTargetLink } from '../marketplace/run-target-link.js';
import { useRunTargets } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { StatusBadge } from './status-badge.js';

const STATUSES: BacktestStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

/** The user's backtests, newest first, optionally of one strategy or one status. */
export function BacktestListPage({ strategyId }: { strategyId: string | undefined }) {
  const client = useClient();
  const [status, setStatus] = useState<BacktestStatus | ''>('');
  // the strategy column: own strategies by name and page, bought ones by their listing's
  const targetOf = useRunTargets();
  const picks = useComparePicks();
  const list = usePagedList<BacktestSummary>(`backtests:${strategyId ?? ''}:${status}`, async (cursor, signal) => {
    const query = { limit: 50, ...(strategyId ? { strategyId } : {}), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) };
    const page = await client.backtests.list({ query }, { signal });
    return { items: page.backtests, nextCursor: page.nextCursor };
  });

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
      <PagedListView
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
      >
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Strategy</th>
                <th scope="col">Symbols</th>
                <th scope="col">Range</th>
                <th scope="col">Timeframe</th>
                <th scope="col">Status</th>
                <th scope="col">Compare</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((b) => (
                <tr key={b.id}>
                  <th scope="row">
                    <Link to={{ name: 'backtest', id: b.id }}>{formatTime(b.createdAt)}</Link>
                  </th>
                  <td>
                    <RunTargetLink target={targetOf(b.strategyId)} /> v{b.strategyVersion}
                  </td>
                  <td>{b.symbols.join(', ')}</td>
                  <td>
                    {b.startDate} to {b.endDate}
                  </td>
                  <td>{b.timeframe}</td>
                  <td>
                    <StatusBadge status={b.status} />
                    {b.status === 'running' ? ` ${Math.round(b.progress * 100)}%` : ''}
                  </td>
                  <td>{b.status === 'completed' ? <ComparePick picks={picks} id={b.id} label={`the backtest of ${formatTime(b.createdAt)}`} /> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </PagedListView>
    </section>
  );
}
