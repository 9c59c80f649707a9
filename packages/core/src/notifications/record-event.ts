import { createHash } from 'node:crypto';
import {
  ID_PREFIXES,
  NOTIFICATION_EVENT_CATALOGUE,
  type NotificationEventData,
  type NotificationEventType,
  type NotificationSubjectKind,
} from '@stratbox/contract';
import type { StoreRepositories } from '../ports/store.js';
import { newId } from '../util/ids.js';

/** An event to write to the outbox (see `recordNotificationEvent`). */
export interface NewNotificationEvent<T extends NotificationEventType> {
  type: T;
  /** The user the event is for (for `listing.purchased` and `review.created`, the seller). */
  userId: string;
  subject: { kind: NotificationSubjectKind; id: string };
  /** One line for people; cut to 500 characters. */
  summary: string;
  data: NotificationEventData<T>;
  /** When it happened (ISO-8601 UTC with ms). */
  time: string;
  /**
   * What makes this event one of a kind, e.g. `backtest.completed:bt_...`. The same key always
   * gives the same event id, so an emitter that may run twice for one change (a redelivered job,
   * a retried webhook, a poll that sees the same silence) writes the event once. Leave it out
   * for events that are new each time.
   */
  dedupeKey?: string;
  /** Deliver only to this channel (a test send). */
  onlyChannelId?: string;
  /** Deliver to every matching channel but this one. */
  exceptChannelId?: string;
}

/** The event id a dedupe key stands for: `evt_` and 22 URL-safe characters of its SHA-256. */
export function eventIdFor(dedupeKey: string): string {
  return `${ID_PREFIXES.notificationEvent}_${createHash('sha256').update(dedupeKey).digest('base64url').slice(0, 22)}`;
}

/**
 * Writes one notification event to the outbox through `repos`: pass the repositories of the
 * transaction that makes the change the event reports, so that the event exists exactly when
 * the change does (a crash after the commit loses nothing; a rollback sends nothing). The
 * dispatcher fans it out to the user's channels and the `user:<id>:events` channel later.
 * Returns the event id, or null when an event with the same `dedupeKey` was already written.
 */
export async function recordNotificationEvent<T extends NotificationEventType>(
  repos: Pick<StoreRepositories, 'notificationEvents'>,
  event: NewNotificationEvent<T>,
): Promise<string | null> {
  const id = event.dedupeKey === undefined ? newId('notificationEvent') : eventIdFor(event.dedupeKey);
  const inserted = await repos.notificationEvents.insert({
    id,
    userId: event.userId,
    type: event.type,
    severity: NOTIFICATION_EVENT_CATALOGUE[event.type].severity,
    time: event.time,
    subjectKind: event.subject.kind,
    subjectId: event.subject.id,
    summary: event.summary.length > 500 ? `${event.summary.slice(0, 499)}…` : event.summary,
    data: event.data as Record<string, unknown>,
    onlyChannelId: event.onlyChannelId ?? null,
    exceptChannelId: event.exceptChannelId ?? null,
    dispatchedAt: null,
    createdAt: event.time,
  });
  return inserted ? id : null;
}
