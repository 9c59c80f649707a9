import type { WebhookPayload } from '@stratbox/contract';
import type { NotificationDeliveryRecord, StoreRepositories } from '../ports/store.js';
import { severityOf, toEventView } from './notification-views.js';

const MINUTE_MS = 60_000;

/** `<channelId>|<floodKey>|<minute start ISO>`: one digest per channel, kind of event and UTC minute. */
export function digestKeyOf(channelId: string, floodKey: string, minuteStart: Date): string {
  return `${channelId}|${floodKey}|${minuteStart.toISOString()}`;
}

/** The start of the UTC minute `at` falls in. */
export function minuteStartOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS);
}

/** The end of the minute a digest key names: when the digest is sent. */
export function digestDueAt(digestKey: string): Date {
  return new Date(Date.parse(digestKey.slice(digestKey.lastIndexOf('|') + 1)) + MINUTE_MS);
}

/**
 * What a delivery sends: its event as stored, or for a digest a summary of the events it counts
 * (their type, record, number and minute; each one stays in the events list). Null when the
 * event is gone (its owner's data was deleted).
 */
export async function deliveryPayload(
  repos: Pick<StoreRepositories, 'notificationEvents'>,
  delivery: NotificationDeliveryRecord,
): Promise<WebhookPayload | null> {
  const first = await repos.notificationEvents.findById(delivery.userId, delivery.eventId);
  if (!first) return null;
  if (delivery.digestKey === null) return toEventView(first);
  const to = digestDueAt(delivery.digestKey);
  const from = new Date(to.getTime() - MINUTE_MS);
  const hhmm = from.toISOString().slice(11, 16);
  return {
    id: delivery.id,
    type: 'digest',
    severity: severityOf(delivery.eventType),
    time: to.toISOString(),
    userId: delivery.userId,
    subject: { kind: first.subjectKind, id: first.subjectId },
    summary: `${delivery.eventCount} more ${delivery.eventType} events on ${first.subjectId} in the minute from ${hhmm} UTC (first: ${first.summary})`.slice(
      0,
      500,
    ),
    digest: {
      eventType: delivery.eventType,
      count: delivery.eventCount,
      from: from.toISOString(),
      to: to.toISOString(),
      firstEventId: delivery.eventId,
      lastEventId: delivery.lastEventId,
    },
  };
}
