import { formatTime } from '../ui/format.js';
import type { RecentEvent } from './use-notification-events.js';

/** One event in the bell's list: its summary, type, severity and time; unread ones are marked. */
export function EventItem({ event, unread }: { event: RecentEvent; unread: boolean }) {
  return (
    <li className={`event-item severity-${event.severity}${unread ? ' unread' : ''}`}>
      <p className="event-summary">
        {unread ? <span className="visually-hidden">Unread: </span> : null}
        {event.summary}
      </p>
      <p className="muted small">
        <code>{event.type}</code> · {event.severity} · <time dateTime={event.time}>{formatTime(event.time)} UTC</time>
      </p>
    </li>
  );
}
