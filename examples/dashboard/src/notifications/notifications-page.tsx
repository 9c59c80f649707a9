import type { NotificationChannel } from '@stratbox/client';
import { useState } from 'react';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { useAsync } from '../ui/use-async.js';
import { ChannelForm, type CreatedChannel } from './channel-form.js';
import { ChannelTable } from './channel-table.js';
import { DeliveryTable } from './delivery-table.js';
import { SigningSecret } from './signing-secret.js';

/** Channels per user are capped by plan (free 3, pro 10, team 25): one page of 50 holds them all. */
const LIMIT = 50;

/**
 * The Notifications page: the user's channels (a signed webhook, Telegram, Discord), adding one
 * (and its signing secret, shown once), a test send, pause and resume, delete, and each channel's
 * delivery log.
 */
export function NotificationsPage() {
  const client = useClient();
  const channels = useAsync('notification-channels', (signal) => client.notifications.list({ query: { limit: LIMIT } }, { signal }));
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<CreatedChannel | null>(null);
  const [shown, setShown] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const list = channels.data?.channels ?? [];

  function onCreated(channel: CreatedChannel) {
    setAdding(false);
    setCreated(channel.signingSecret ? channel : null);
    channels.reload();
  }
  function onChanged(id: string, channel: NotificationChannel | null) {
    if (!channels.data) return;
    const next = channel ? list.map((c) => (c.id === id ? channel : c)) : list.filter((c) => c.id !== id);
    channels.setData({ ...channels.data, channels: next });
    if (!channel && shown === id) setShown(null);
  }
  function onTested(channel: NotificationChannel) {
    setShown(channel.id);
    setVersion((v) => v + 1);
  }

  const shownChannel = list.find((c) => c.id === shown) ?? null;
  return (
    <section>
      <div className="page-header">
        <h1>Notifications</h1>
        {adding ? null : (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Add channel
          </button>
        )}
      </div>
      <p className="muted">
        Stratbox tells you when a deployment fails or halts, a run ends, a listing sells or your plan runs low: by a signed webhook, a Telegram chat or a
        Discord webhook. The bell above shows the same events in the dashboard.
      </p>
      {created?.signingSecret ? <SigningSecret label={created.label} secret={created.signingSecret} onDone={() => setCreated(null)} /> : null}
      {adding ? <ChannelForm onCreated={onCreated} onCancel={() => setAdding(false)} /> : null}
      <ErrorBanner error={channels.error} title="Could not load your channels" />
      {channels.loading && !channels.data ? <Loading label="Loading channels…" /> : null}
      {channels.data && list.length === 0 ? (
        <EmptyState title="No channels yet">
          <p>Add a webhook, a Telegram chat or a Discord webhook to hear about what happens while you are away.</p>
        </EmptyState>
      ) : null}
      {list.length > 0 ? <ChannelTable channels={list} shown={shown} onShow={setShown} onChanged={onChanged} onTested={onTested} /> : null}
      {shownChannel ? <DeliveryTable key={shownChannel.id} channel={shownChannel} version={version} /> : null}
    </section>
  );
}
