import { type NotificationEvent, userEventsChannel } from '@stratbox/client';
import { useCallback, useEffect, useState } from 'react';
import { useClient, useSession } from '../session/session-context.js';
import { describeError, type ErrorView } from '../ui/describe-error.js';
import { countUnread, markReadUntil, readUntil } from './read-marks.js';
import { readUserId } from './read-user-id.js';

/** What the bell shows of an event (the list's and the channel's types differ only in how `data` is typed). */
export type RecentEvent = Pick<NotificationEvent, 'id' | 'type' | 'severity' | 'time' | 'summary'>;

/** How many recent events the bell keeps. */
const RECENT = 20;

export interface NotificationEvents {
  /** The most recent events, newest first: the last ones of `GET /api/notification-events`, then each that arrives. */
  events: RecentEvent[];
  /** Events newer than the last time the bell was opened in this browser. */
  unread: number;
  error: ErrorView | null;
  /** The channel is subscribed: new events show as they happen. */
  live: boolean;
  /** Marks every shown event read. */
  markRead(): void;
}

/** Adds `incoming` to `events`, newest first, each id once, at most RECENT. */
function merge(events: RecentEvent[], incoming: RecentEvent[]): RecentEvent[] {
  const byId = new Map([...incoming, ...events].map((event) => [event.id, event]));
  return [...byId.values()].sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0)).slice(0, RECENT);
}

/**
 * The signed-in user's notification events for the bell: the recent ones from the API, then each
 * one as it happens on `user:<id>:events` (the client reconnects and re-subscribes by itself).
 * The user id comes from the WebSocket's sign-in answer. Read marks live in localStorage.
 */
export function useNotificationEvents(): NotificationEvents {
  const client = useClient();
  const { session } = useSession();
  const [events, setEvents] = useState<RecentEvent[]>([]);
  const [userId, setUserId] = useState<string | null>(null);
  const [until, setUntil] = useState<string | null>(null);
  const [error, setError] = useState<ErrorView | null>(null);
  const [live, setLive] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    client.notifications.events({ query: { limit: RECENT } }, { signal: controller.signal }).then(
      (page) => setEvents((shown) => merge(shown, page.events)),
      (caught: unknown) => controller.signal.aborted || setError(describeError(caught)),
    );
    return () => controller.abort();
  }, [client]);

  useEffect(() => {
    if (!session) return;
    const controller = new AbortController();
    readUserId(session.baseUrl, session.apiKey, controller.signal).then(
      (id) => {
        setUntil(readUntil(id));
        setUserId(id);
      },
      (caught: unknown) => controller.signal.aborted || setError(describeError(caught)),
    );
    return () => controller.abort();
  }, [session]);

  useEffect(() => {
    if (!userId) return;
    const stop = client.subscribe(userEventsChannel(userId), (event) => setEvents((shown) => merge(shown, [event])), {
      onSubscribed: () => setLive(true),
      onError: (caught) => {
        setLive(false);
        setError(describeError(caught));
      },
    });
    return () => {
      setLive(false);
      stop();
    };
  }, [client, userId]);

  const newest = events[0]?.time ?? null;
  const markRead = useCallback(() => {
    if (!userId || !newest) return;
    markReadUntil(userId, newest);
    setUntil(readUntil(userId));
  }, [userId, newest]);

  return { events, unread: userId ? countUnread(events, until) : 0, error, live, markRead };
}
