import { useRunTargets } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import { createdColumn, strategyColumn } from '../runs/run-columns.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { PagedTable } from '../ui/paged-table.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { DeploymentStatusBadge } from './deployment-status-badge.js';

/** The user's deployments, newest first, 50 a page. */
export function DeploymentListPage() {
  const client = useClient();
  // own strategies by name and page; bought ones by their listing's
  const targetOf = useRunTargets();
  const list = usePagedList(
    'deployments',
    (at, signal) => client.deployments.list({ query: { limit: 50, ...at } }, { signal }),
    (page) => page.deployments,
  );

  return (
    <section>
      <div className="page-header">
        <h1>Deployments</h1>
        <Link className="button primary" to={{ name: 'newDeployment' }}>
          New deployment
        </Link>
      </div>
      <PagedTable
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
        rowKey={(d) => d.id}
        columns={[
          createdColumn('deployment'),
          strategyColumn(targetOf),
          { key: 'symbols', header: 'Symbols', cell: (d) => d.symbols.join(', ') },
          { key: 'status', header: 'Status', cell: (d) => <DeploymentStatusBadge status={d.status} /> },
        ]}
      />
    </section>
  );
}
