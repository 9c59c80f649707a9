import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { LogLines } from '../ui/log-lines.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { useLiveListKey } from './use-live-list-key.js';

/** The deployment's log (the service's lines and the strategy's `ctx.log`), oldest first, 200 a page; read again on `refresh` until the user pages on. */
export function DeploymentLogs({ deploymentId, refresh }: { deploymentId: string; refresh: number }) {
  const client = useClient();
  const live = useLiveListKey(refresh);
  const list = usePagedList(
    `deployment-logs:${deploymentId}:${live.key}`,
    (at, signal) => client.deployments.logPage({ params: { id: deploymentId }, query: { limit: 200, ...at } }, { signal }),
    (page) => page.logs,
  );
  return (
    <section aria-labelledby="logs-title">
      <div className="page-header">
        <h2 id="logs-title">Log</h2>
        <button type="button" onClick={live.refresh} disabled={list.loading}>
          Refresh
        </button>
      </div>
      <PagedListView
        list={{ ...list, loadMore: () => live.more(list.loadMore) }}
        errorTitle="Could not load the log"
        loadingLabel="Loading the log…"
        moreLabel="Load more lines"
        empty={<EmptyState title="No log lines yet">The deployment writes here as it starts, trades and stops.</EmptyState>}
      >
        <LogLines lines={list.items} />
      </PagedListView>
    </section>
  );
}
