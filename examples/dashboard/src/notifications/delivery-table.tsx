import type { NotificationChannel, NotificationDelivery } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { DeliveryStatusBadge } from './delivery-status-badge.js';

/** A channel's delivery log, newest first, 20 a page: status, attempts, last HTTP status, last error and time. `version` reloads it. */
export function DeliveryTable({ channel, version }: { channel: NotificationChannel; version: number }) {
  const client = useClient();
  const list = usePagedList<NotificationDelivery>(`deliveries:${channel.id}:${version}`, async (cursor, signal) => {
    const page = await client.notifications.deliveries({ params: { id: channel.id }, query: { limit: 20, ...(cursor ? { cursor } : {}) } }, { signal });
    return { items: page.deliveries, nextCursor: page.nextCursor };
  });
  return (
    <section className="deliveries" aria-labelledby={`deliveries-${channel.id}`}>
      <h2 id={`deliveries-${channel.id}`}>Deliveries of “{channel.label}”</h2>
      <PagedListView
        list={list}
        errorTitle="Could not load the deliveries"
        loadingLabel="Loading deliveries…"
        moreLabel="Older deliveries"
        empty={<EmptyState title="Nothing delivered yet">Send a test to see a delivery here.</EmptyState>}
      >
        <div className="table-wrap">
          <table className="delivery-table">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="numeric">
                  Attempts
                </th>
                <th scope="col" className="numeric">
                  HTTP
                </th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((d) => (
                <tr key={d.id} data-delivery-id={d.id}>
                  <th scope="row">
                    <time dateTime={d.createdAt}>{formatTime(d.createdAt)}</time>
                  </th>
                  <td>
                    <code>{d.eventType}</code>
                    {d.digest ? ` (digest of ${d.eventCount})` : null}
                  </td>
                  <td>
                    <DeliveryStatusBadge status={d.status} />
                    {d.status === 'pending' && d.nextAttemptAt ? <span className="muted small"> next {formatTime(d.nextAttemptAt)}</span> : null}
                  </td>
                  <td className="numeric">{d.attempts}</td>
                  <td className="numeric">{d.lastStatusCode ?? '–'}</td>
                  <td className="small">{d.lastError ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </PagedListView>
    </section>
  );
}
