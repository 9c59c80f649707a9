import { useEffect, useId, useRef, useState } from 'react';
import { Link } from '../routing/link.js';
import { EventItem } from './event-item.js';
import { useNotificationEvents } from './use-notification-events.js';

/**
 * The unread-events bell of the top bar: a count of the events since it was last opened, fed by
 * the WebSocket, and a dropdown of the recent ones. Opening it marks them read; Escape or a click
 * elsewhere closes it.
 */
export function NotificationBell() {
  const { events, unread, error, live, markRead } = useNotificationEvents();
  const [open, setOpen] = useState(false);
  const [readBefore, setReadBefore] = useState<Set<string>>(new Set());
  const root = useRef<HTMLDivElement>(null);
  const id = useId();

  // what was unread when the dropdown opened stays marked while it is open
  function toggle() {
    if (!open) {
      setReadBefore(new Set(events.slice(0, unread).map((event) => event.id)));
      markRead();
    }
    setOpen(!open);
  }

  // events arriving while it is open are read as they show
  useEffect(() => {
    if (open && unread > 0) markRead();
  }, [open, unread, markRead]);

  useEffect(() => {
    if (!open) return;
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', close);
    document.addEventListener('mousedown', close);
    return () => {
      document.removeEventListener('keydown', close);
      document.removeEventListener('mousedown', close);
    };
  }, [open]);

  return (
    <div className="notification-bell" ref={root}>
      <button
        type="button"
        className="bell-button"
        data-live={live}
        title={live ? 'Notifications: new events show as they happen' : 'Notifications'}
        aria-expanded={open}
        aria-controls={`${id}-events`}
        aria-label={unread > 0 ? `Notifications, ${unread} unread` : 'Notifications'}
        onClick={toggle}
      >
        <svg
          aria-hidden="true"
          width="18"
          height="18"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <path d="M18 8a6 6 0 0 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
          <path d="M13.7 21a2 2 0 0 1-3.4 0" />
        </svg>
        {unread > 0 ? (
          <span className="bell-count" data-testid="bell-count" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        ) : null}
      </button>
      {open ? (
        <section className="bell-dropdown" id={`${id}-events`} aria-label="Recent notifications">
          {error ? <p className="field-error">{error.message}</p> : null}
          {events.length === 0 ? (
            <p className="muted small">No events yet. Deployments, runs, sales and billing tell you here what happened.</p>
          ) : (
            <ul className="event-list">
              {events.map((event) => (
                <EventItem key={event.id} event={event} unread={readBefore.has(event.id)} />
              ))}
            </ul>
          )}
          <Link to={{ name: 'notifications' }} onClick={() => setOpen(false)}>
            Notification channels
          </Link>
        </section>
      ) : null}
    </div>
  );
}
