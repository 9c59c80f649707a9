import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedTable } from '../ui/paged-table.js';
import { usePagedList } from '../ui/use-paged-list.js';

const PAGE_SIZE = 50;

/** The user's strategies, newest first, a page at a time. */
export function StrategyListPage() {
  const client = useClient();
  const list = usePagedList(
    'strategies',
    (at, signal) => client.strategies.list({ query: { limit: PAGE_SIZE, ...at } }, { signal }),
    (page) => page.strategies,
  );

  return (
    <section>
      <div className="page-header">
        <h1>Strategies</h1>
        <Link className="button primary" to={{ name: 'newStrategy' }}>
          New strategy
        </Link>
      </div>
      <PagedTable
        list={list}
        errorTitle="Could not load your strategies"
        loadingLabel="Loading strategies…"
        empty={
          <EmptyState title="No strategies yet">
            <p>
              A strategy is a JavaScript or TypeScript module with an <code>onCandle</code> function.{' '}
              <Link to={{ name: 'newStrategy' }}>Create your first one</Link> from a working example.
            </p>
          </EmptyState>
        }
        rowKey={(s) => s.id}
        columns={[
          {
            key: 'name',
            header: 'Name',
            cell: (s) => (
              <>
                <Link to={{ name: 'strategy', id: s.id }}>{s.name}</Link>
                {s.description ? <div className="muted small">{s.description}</div> : null}
              </>
            ),
          },
          { key: 'market', header: 'Market', cell: (s) => s.marketType },
          { key: 'version', header: 'Version', cell: (s) => `v${s.version}` },
          { key: 'updated', header: 'Updated', cell: (s) => formatTime(s.updatedAt) },
          {
            key: 'actions',
            header: <span className="visually-hidden">Actions</span>,
            cell: (s) => <Link to={{ name: 'newBacktest', strategyId: s.id }}>Backtest</Link>,
          },
        ]}
      />
    </section>
  );
}
