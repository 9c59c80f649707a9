import type { StrategySummary } from '@stratbox/client';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';

const PAGE_SIZE = 50;

/** The user's strategies, newest first, a page at a time. */
export function StrategyListPage() {
  const client = useClient();
  const list = usePagedList<StrategySummary>('strategies', async (cursor, signal) => {
    const page = await client.strategies.list({ query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } }, { signal });
    return { items: page.strategies, nextCursor: page.nextCursor };
  });

  return (
    <section>
      <div className="page-header">
        <h1>Strategies</h1>
        <Link className="button primary" to={{ name: 'newStrategy' }}>
          New strategy
        </Link>
      </div>
      <PagedListView
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
      >
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Market</th>
                <th scope="col">Version</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    <Link to={{ name: 'strategy', id: s.id }}>{s.name}</Link>
                    {s.description ? <div className="muted small">{s.description}</div> : null}
                  </th>
                  <td>{s.marketType}</td>
                  <td>v{s.version}</td>
                  <td>{formatTime(s.updatedAt)}</td>
                  <td>
                    <Link to={{ name: 'newBacktest', strategyId: s.id }}>Backtest</Link>
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
