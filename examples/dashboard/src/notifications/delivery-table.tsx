import type { NotificationChannel } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedTable } from '../ui/paged-table.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { DeliveryStatusBadge } from './delivery-status-badge.js';

/** A channel's delivery log, newest first, 20 a page: status, attempts, last HTTP status, last error and time. `version` reloads it. */
export function DeliveryTable({ channel, version }: { channel: NotificationChannel; version: number }) {
  const client = useClient();
  const list = usePagedList(
    `deliveries:${channel.id}:${version}`,
    (at, signal) => client.notifications.deliveries({ params: { id: channel.id }, query: { limit: 20, ...at } }, { signal }),
    (page) => page.deliveries,
  );
  return (
    <section className="deliveries" aria-labelledby={`deliveries-${channel.id}`}>
      <h2 id={`deliveries-${channel.id}`}>Deliveries of “{channel.label}”</h2>
      <PagedTable
        list={list}
        errorTitle="Could not load the deliveries"
        loadingLabel="Loading deliveries…"
        moreLabel="Older deliveries"
        empty={<EmptyState title="Nothing delivered yet">Send a test to see a delivery here.</EmptyState>}
        className="delivery-table"
        rowKey={(d) => d.id}
        rowProps={(d) => ({ 'data-delivery-id': d.id })}
        columns={[
          { key: 'time', header: 'Time', cell: (d) => <time dateTime={d.createdAt}>{formatTime(d.createdAt)}</time> },
          {
            key: 'event',
            header: 'Event',
            cell: (d) => (
              <>
                <code>{d.eventType}</code>
                {d.digest ? ` (digest of ${d.eventCount})` : null}
              </>
            ),
          },
          {
            key: 'status',
            header: 'Status',
            cell: (d) => (
              <>
                <DeliveryStatusBadge status={d.status} />
                {d.status === 'pending' && d.nextAttemptAt ? <span className="muted small"> next {formatTime(d.nextAttemptAt)}</span> : null}
              </>
            ),
          },
          { key: 'attempts', header: 'Attempts', numeric: true, cell: (d) => d.attempts },
          { key: 'http', header: 'HTTP', numeric: true, cell: (d) => d.lastStatusCode ?? '–' },
          { key: 'error', header: 'Last error', cellClass: 'small', cell: (d) => d.lastError ?? '–' },
        ]}
      />
    </section>
  );
}
