import type { NotificationChannel, NotificationDelivery } from '@stratbox/client';
import { useState } from 'react';
import { useClient } from '../session/session-context.js';
import { ConfirmDialog } from '../ui/confirm-dialog.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { useAction } from '../ui/use-action.js';
import { TestResult } from './test-result.js';

interface ChannelActionsProps {
  channel: NotificationChannel;
  /** After a test, a pause or resume: the channel as it is now (null when deleted). */
  onChanged(channel: NotificationChannel | null): void;
  /** A test was sent: its delivery. */
  onTested(delivery: NotificationDelivery): void;
}

/** A channel's buttons: send a test (and how it went), pause or resume, delete (asked first). */
export function ChannelActions({ channel, onChanged, onTested }: ChannelActionsProps) {
  const client = useClient();
  const action = useAction();
  const [tested, setTested] = useState<NotificationDelivery | null>(null);
  const [deleting, setDeleting] = useState(false);
  const params = { params: { id: channel.id } };
  const paused = channel.status === 'paused';

  const test = () =>
    action.run(async () => {
      setTested(null);
      const delivery = await client.notifications.test(params);
      setTested(delivery);
      onTested(delivery);
    }, 'test');
  const pause = () => action.run(async () => onChanged(await client.notifications.update({ ...params, body: { paused: !paused } })), 'pause');
  async function remove() {
    const done = await action.run(() => client.notifications.delete(params), 'delete');
    setDeleting(false);
    if (done) onChanged(null);
  }

  return (
    <div className="channel-actions">
      <div className="actions">
        <button type="button" onClick={test} disabled={action.busy}>
          {action.running === 'test' ? 'Sending…' : 'Send test'}
        </button>
        <button type="button" onClick={pause} disabled={action.busy}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        <button type="button" className="danger" onClick={() => setDeleting(true)} disabled={action.busy}>
          Delete
        </button>
      </div>
      {tested ? <TestResult delivery={tested} /> : null}
      <ErrorBanner error={action.error} title={`“${channel.label}” did not change`} />
      <ConfirmDialog
        open={deleting}
        title={`Delete “${channel.label}”?`}
        confirmLabel="Delete channel"
        danger
        busy={action.busy}
        onConfirm={remove}
        onCancel={() => setDeleting(false)}
      >
        <p>It stops receiving events at once, and its delivery log goes with it. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}
