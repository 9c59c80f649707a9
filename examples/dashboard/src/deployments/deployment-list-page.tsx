import type { Deployment } from '@stratbox/client';
import { RunTargetLink } from '../marketplace/run-target-link.js';
import { useRunTargets } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { DeploymentStatusBadge } from './deployment-status-badge.js';

/** The user's deployments, newest first, 50 a page. */
export function DeploymentListPage() {
  const client = useClient();
  // own strategies by name and page; bought ones by their listing's
  const targetOf = useRunTargets();
  const list = usePagedList<Deployment>('deployments', async (cursor, signal) => {
    const page = await client.deployments.list({ query: { limit: 50, ...(cursor ? { cursor } : {}) } }, { signal });
    return { items: page.deployments, nextCursor: page.nextCursor };
  });

  return (
    <section>
      <div className="page-header">
        <h1>Deployments</h1>
        <Link className="button primary" to={{ name: 'newDeployment' }}>
          New deployment
        </Link>
      </div>
      <PagedListView
        list={list}
        errorTitle="Could not load your deployments"
        loadingLabel="Loading deployments…"
        empty={
          <EmptyState title="No deployments yet">
            <p>
              A deployment runs a strategy on new candles as they close and places its orders. <Link to={{ name: 'newDeployment' }}>Deploy one on paper</Link>{' '}
              to watch it trade without real money.
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
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((d) => (
                <tr key={d.id}>
                  <th scope="row">
                    <Link to={{ name: 'deployment', id: d.id }}>{formatTime(d.createdAt)}</Link>
                  </th>
                  <td>
                    <RunTargetLink target={targetOf(d.strategyId)} /> v{d.strategyVersion}
                  </td>
                  <td>{d.symbols.join(', ')}</td>
                  <td>
                    <DeploymentStatusBadge status={d.status} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </PagedListView>
    </section>
  );
}
