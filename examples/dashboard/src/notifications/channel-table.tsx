import type { NotificationChannel, NotificationDelivery } from '@stratbox/client';
import { StatusBadge } from '../ui/status-badge.js';
import { ChannelActions } from './channel-actions.js';

interface ChannelTableProps {
  channels: NotificationChannel[];
  /** The channel whose deliveries are shown below the table. */
  shown: string | null;
  onShow(channelId: string | null): void;
  onChanged(id: string, channel: NotificationChannel | null): void;
  onTested(channel: NotificationChannel, delivery: NotificationDelivery): void;
}

const KIND_LABEL: Record<NotificationChannel['kind'], string> = { webhook: 'Webhook', telegram: 'Telegram', discord: 'Discord' };

/** The user's channels: kind, label, target (no secret), status, events and minimum severity, with their actions. */
export function ChannelTable({ channels, shown, onShow, onChanged, onTested }: ChannelTableProps) {
  return (
    <div className="table-wrap">
      <table className="channel-table">
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Kind</th>
            <th scope="col">Target</th>
            <th scope="col">Status</th>
            <th scope="col">Events</th>
            <th scope="col">Min severity</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {channels.map((channel) => (
            <tr key={channel.id} data-channel-id={channel.id}>
              <th scope="row">{channel.label}</th>
              <td>{KIND_LABEL[channel.kind]}</td>
              <td>
                <code>{channel.target}</code>
              </td>
              <td>
                <StatusBadge status={channel.status} tone={channel.status === 'active' ? 'completed' : 'failed'} />
                {channel.pausedReason ? <p className="muted small">{channel.pausedReason}</p> : null}
              </td>
              <td className="small">{channel.events.includes('*') ? 'All events' : channel.events.join(', ')}</td>
              <td>{channel.minSeverity}</td>
              <td>
                <ChannelActions channel={channel} onChanged={(next) => onChanged(channel.id, next)} onTested={(delivery) => onTested(channel, delivery)} />
                <button
                  type="button"
                  className="link-button"
                  aria-expanded={shown === channel.id}
                  onClick={() => onShow(shown === channel.id ? null : channel.id)}
                >
                  {shown === channel.id ? 'Hide deliveries' : 'Deliveries'}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
