import type { LogPageData } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';

type LogLine = LogPageData['logs'][number];

/** The lines the strategy wrote during the run (`ctx.log`), oldest first, 200 a page. */
export function BacktestLogs({ backtestId }: { backtestId: string }) {
  const client = useClient();
  const list = usePagedList<LogLine>(`logs:${backtestId}`, async (cursor, signal) => {
    const page = await client.backtests.logPage({ params: { id: backtestId }, query: { limit: 200, ...(cursor ? { cursor } : {}) } }, { signal });
    return { items: page.logs, nextCursor: page.nextCursor };
  });
  return (
    <div className="logs">
      <PagedListView
        list={list}
        errorTitle="Could not load the log"
        loadingLabel="Loading the log…"
        moreLabel="Load more lines"
        empty={<EmptyState title="No log lines">The strategy wrote nothing with ctx.log during this run.</EmptyState>}
      >
        <ol className="log-lines">
          {list.items.map((line, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: log lines only ever append
            <li key={index} className={`log-${line.level}`}>
              <time dateTime={line.timestamp}>{formatTime(line.timestamp)}</time> <span className="log-level">{line.level}</span> {line.message}
            </li>
          ))}
        </ol>
      </PagedListView>
    </div>
  );
}
