import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { LogLines } from '../ui/log-lines.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';

/** The lines the strategy wrote during the run (`ctx.log`), oldest first, 200 a page. */
export function BacktestLogs({ backtestId }: { backtestId: string }) {
  const client = useClient();
  const list = usePagedList(
    `logs:${backtestId}`,
    (at, signal) => client.backtests.logPage({ params: { id: backtestId }, query: { limit: 200, ...at } }, { signal }),
    (page) => page.logs,
  );
  // a bought strategy's run: its log is kept for no one (a run-only licence does not include it)
  if (list.error?.code === 'FORBIDDEN') {
    return <EmptyState title="No log for a bought strategy">A run-only licence does not include what the strategy writes.</EmptyState>;
  }
  return (
    <div className="logs">
      <PagedListView
        list={list}
        errorTitle="Could not load the log"
        loadingLabel="Loading the log…"
        moreLabel="Load more lines"
        empty={<EmptyState title="No log lines">The strategy wrote nothing with ctx.log during this run.</EmptyState>}
      >
        <LogLines lines={list.items} />
      </PagedListView>
    </div>
  );
}
