import { useRunTargets } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import { createdColumn, runStatusColumn, strategyColumn } from '../runs/run-columns.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatNumber } from '../ui/format.js';
import { PagedTable } from '../ui/paged-table.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { methodLabel } from './method-label.js';
import { objectiveLabel } from './optimization-form-values.js';

/** The user's optimizations, newest first. */
export function OptimizationListPage() {
  const client = useClient();
  const targetOf = useRunTargets();
  const list = usePagedList(
    'optimizations',
    (at, signal) => client.optimizations.list({ query: { limit: 50, ...at } }, { signal }),
    (page) => page.optimizations,
  );

  return (
    <section>
      <div className="page-header">
        <h1>Optimizations</h1>
        <Link className="button primary" to={{ name: 'newOptimization' }}>
          New optimization
        </Link>
      </div>
      <PagedTable
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
        className="optimization-list"
        rowKey={(o) => o.id}
        columns={[
          createdColumn('optimization'),
          strategyColumn(targetOf),
          runStatusColumn(),
          { key: 'method', header: 'Method', cell: (o) => methodLabel(o) },
          { key: 'objective', header: 'Objective', cell: (o) => objectiveLabel(o.objective) },
          {
            key: 'trials',
            header: 'Trials',
            numeric: true,
            cell: (o) => `${o.trialsDone.toLocaleString('en')} / ${o.trialsTotal.toLocaleString('en')}`,
          },
          { key: 'best', header: 'Best', numeric: true, cell: (o) => formatNumber(o.best?.objective) },
        ]}
      />
    </section>
  );
}
