import type { OptimizationSummary } from '@stratbox/client';
import { StatusBadge } from '../backtests/status-badge.js';
import { RunTargetLink } from '../marketplace/run-target-link.js';
import { useRunTargets } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatNumber, formatTime } from '../ui/format.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { methodLabel } from './method-label.js';
import { objectiveLabel } from './optimization-form-values.js';

/** The user's optimizations, newest first. */
export function OptimizationListPage() {
  const client = useClient();
  const targetOf = useRunTargets();
  const list = usePagedList<OptimizationSummary>('optimizations', async (cursor, signal) => {
    const page = await client.optimizations.list({ query: { limit: 50, ...(cursor ? { cursor } : {}) } }, { signal });
    return { items: page.optimizations, nextCursor: page.nextCursor };
  });

  return (
    <section>
      <div className="page-header">
        <h1>Optimizations</h1>
        <Link className="button primary" to={{ name: 'newOptimization' }}>
          New optimization
        </Link>
      </div>
      <PagedListView
        list={list}
        errorTitle="Could not load your optimizations"
        loadingLabel="Loading optimizations…"
        empty={
          <EmptyState title="No optimizations yet">
            <p>
              <Link to={{ name: 'newOptimization' }}>New optimization</Link>: run a strategy over many parameter sets and see which hold up.
            </p>
          </EmptyState>
        }
      >
        <div className="table-wrap">
          <table className="optimization-list">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Strategy</th>
                <th scope="col">Status</th>
                <th scope="col">Method</th>
                <th scope="col">Objective</th>
                <th scope="col" className="numeric">
                  Trials
                </th>
                <th scope="col" className="numeric">
                  Best
                </th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((o) => (
                <tr key={o.id}>
                  <th scope="row">
                    <Link to={{ name: 'optimization', id: o.id }}>{formatTime(o.createdAt)}</Link>
                  </th>
                  <td>
                    <RunTargetLink target={targetOf(o.strategyId)} /> v{o.strategyVersion}
                  </td>
                  <td>
                    <StatusBadge status={o.status} />
                    {o.status === 'running' ? ` ${Math.round(o.progress * 100)}%` : ''}
                  </td>
                  <td>{methodLabel(o)}</td>
                  <td>{objectiveLabel(o.objective)}</td>
                  <td className="numeric">
                    {o.trialsDone.toLocaleString('en')} / {o.trialsTotal.toLocaleString('en')}
                  </td>
                  <td className="numeric">{formatNumber(o.best?.objective)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </PagedListView>
    </section>
  );
}
