import {
  NOTIFICATION_EVENT_CATALOGUE,
  type NotificationChannel,
  type NotificationDelivery,
  type NotificationEvent,
  type NotificationEventType,
} from '@stratbox/contract';
import type { NotificationChannelRecord, NotificationDeliveryRecord, NotificationEventRecord } from '../ports/store.js';

/** A channel as the API shows it: never its secrets. */
export function toChannelView(record: NotificationChannelRecord): NotificationChannel {
  return {
    id: record.id,
    kind: record.kind,
    label: record.label,
    events: record.events as NotificationChannel['events'],
    minSeverity: record.minSeverity,
    status: record.status,
    pausedReason: record.pausedReason,
    target: record.target,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** A delivery as the API shows it (the lease is internal). */
export function toDeliveryView(record: NotificationDeliveryRecord): NotificationDelivery {
  return {
    id: record.id,
    channelId: record.channelId,
    eventId: record.eventId,
    eventType: record.eventType,
    digest: record.digestKey !== null,
    eventCount: record.eventCount,
    status: record.status,
    attempts: record.attempts,
    lastStatusCode: record.lastStatusCode,
    lastError: record.lastError,
    nextAttemptAt: record.status === 'pending' ? record.nextAttemptAt : null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    deliveredAt: record.deliveredAt,
  };
}

/** An outbox event as a receiver, the WebSocket and the events list see it. */
export function toEventView(record: NotificationEventRecord): NotificationEvent {
  return {
    id: record.id,
    type: record.type,
    severity: record.severity,
    time: record.time,
    userId: record.userId,
    subject: { kind: record.subjectKind, id: record.subjectId },
    summary: record.summary,
    data: record.data,
  } as NotificationEvent;
}

/** The severity of an event type, from the catalogue. */
export function severityOf(type: NotificationEventType) {
  return NOTIFICATION_EVENT_CATALOGUE[type].severity;
}
