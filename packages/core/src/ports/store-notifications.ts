import type { NotificationChannelKind, NotificationEventType, NotificationSeverity, NotificationSubjectKind } from '@stratbox/contract';
import type { SealedSecret } from './secret-box.js';
import type { PageRequest } from './store.js';

/*
 * The notification repositories of the Store port (docs/notifications.md). The same guarantees
 * as the rest of the Store (see store.ts): scoping by owner where a method takes a `userId`,
 * `null`/`false` for not found, newest-first lists by (createdAt desc, id desc).
 */

/** A user's notification channel. Its target and secrets are sealed; only `target`, a safe hint, is in clear. */
export interface NotificationChannelRecord {
  /** `nch_...` */
  id: string;
  userId: string;
  kind: NotificationChannelKind;
  label: string;
  /** Event types it takes, or `['*']`. */
  events: string[];
  minSeverity: NotificationSeverity;
  status: 'active' | 'paused';
  /** Why it is paused (by its owner, or after a delivery failed for good); null when active. */
  pausedReason: string | null;
  /** Where it sends, without secrets (a webhook's origin, a chat id, "discord webhook …abcd"). */
  target: string;
  /**
   * The channel's target and secrets as JSON (`{ url?, signingSecret?, botToken?, chatId? }`),
   * sealed by the SecretBox with aad `notification-channel:<id>:<userId>`. Stored as the exact
   * bytes given.
   */
  secrets: SealedSecret;
  createdAt: string;
  updatedAt: string;
}

export type NotificationChannelPatch = Partial<
  Pick<NotificationChannelRecord, 'label' | 'events' | 'minSeverity' | 'status' | 'pausedReason' | 'target' | 'secrets' | 'updatedAt'>
>;

export interface NotificationChannelRepository {
  /** Inserts a channel; throws if the id exists. */
  insert(channel: NotificationChannelRecord): Promise<void>;
  /** The user's channel, or null. */
  findById(userId: string, id: string): Promise<NotificationChannelRecord | null>;
  /** A channel by id whoever owns it, or null: for the delivery worker, which has the id from a delivery. */
  get(id: string): Promise<NotificationChannelRecord | null>;
  /** The user's channels, newest first. */
  list(userId: string, page: PageRequest): Promise<NotificationChannelRecord[]>;
  /** Every channel of the user, newest first (a user has few: the plan caps them). */
  listAll(userId: string): Promise<NotificationChannelRecord[]>;
  /** How many channels the user has. */
  count(userId: string): Promise<number>;
  /** Changes the given fields; the updated record, or null if there is no such channel of the user's. */
  update(userId: string, id: string, patch: NotificationChannelPatch): Promise<NotificationChannelRecord | null>;
  /** Deletes the user's channel and every delivery of it; false if there is no such channel. */
  delete(userId: string, id: string): Promise<boolean>;
}

/**
 * One event in the outbox. Written in the transaction of the change that caused it, so that it
 * exists exactly when the change does; a dispatcher later fans it out to the user's channels.
 */
export interface NotificationEventRecord {
  /** `evt_...`; emitters that may run twice for one change give a deterministic id, so it is written once. */
  id: string;
  userId: string;
  type: NotificationEventType;
  severity: NotificationSeverity;
  /** When it happened (ISO-8601 UTC with ms). */
  time: string;
  subjectKind: NotificationSubjectKind;
  subjectId: string;
  summary: string;
  /** The event's `data` (see the contract's catalogue), as stored JSON. */
  data: Record<string, unknown>;
  /** Deliver to this channel only (a test send); null: to every matching channel. */
  onlyChannelId: string | null;
  /** Never deliver to this channel (`channel.paused` is not sent to the paused channel); null: none. */
  exceptChannelId: string | null;
  /** When a dispatcher fanned it out to channels; null while it waits in the outbox. */
  dispatchedAt: string | null;
  createdAt: string;
}

export interface NotificationEventRepository {
  /** Inserts an event; false (changing nothing) if one with this id exists, so an emitter that runs twice writes it once. */
  insert(event: NotificationEventRecord): Promise<boolean>;
  /** The user's event, or null. */
  findById(userId: string, id: string): Promise<NotificationEventRecord | null>;
  /** The user's events, newest first. */
  list(userId: string, page: PageRequest): Promise<NotificationEventRecord[]>;
  /** Events not yet dispatched, oldest first by (createdAt, id), at most `limit`, across users. */
  listUndispatched(limit: number): Promise<NotificationEventRecord[]>;
  /**
   * Marks the event dispatched at `at` if it is not yet, atomically (a compare-and-set): of
   * several dispatchers (nodes) exactly one gets true, and only it fans the event out. Call it
   * in the transaction that writes the deliveries, so both commit or neither does.
   */
  markDispatched(id: string, at: string): Promise<boolean>;
}

/** One delivery of one event (or of a digest of events) to one channel. */
export interface NotificationDeliveryRecord {
  /** `ndl_...` */
  id: string;
  userId: string;
  channelId: string;
  /** The event, or for a digest the first event it counts. */
  eventId: string;
  eventType: NotificationEventType;
  /**
   * What counts as "identical" for flood control: `<eventType>|<subjectId>`. Every delivery of
   * a channel carries it, so the dispatcher can count a minute's deliveries of one kind.
   */
  floodKey: string;
  /** Set on a digest: `<channelId>|<floodKey>|<minute start ISO>`, unique. Null on a delivery of one event. */
  digestKey: string | null;
  /** Events it carries: 1, or more for a digest. */
  eventCount: number;
  /** For a digest, the last event it counts; else equal to `eventId`. */
  lastEventId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** When the next attempt is due (pending only); null once delivered or failed. */
  nextAttemptAt: string | null;
  /** A node holds the delivery until this time (it is sending); null or past: free to claim. */
  leaseUntil: string | null;
  lastStatusCode: number | null;
  /** Short masked excerpt of why the last attempt failed; null after a success. */
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

export type NotificationDeliveryPatch = Partial<
  Pick<NotificationDeliveryRecord, 'status' | 'attempts' | 'nextAttemptAt' | 'leaseUntil' | 'lastStatusCode' | 'lastError' | 'updatedAt' | 'deliveredAt'>
>;

export interface NotificationDeliveryRepository {
  /**
   * Inserts a delivery; false (changing nothing) if the channel already has a delivery of this
   * event that is not a digest, or a digest with this `digestKey`: fan-out is idempotent.
   */
  insert(delivery: NotificationDeliveryRecord): Promise<boolean>;
  /** The user's delivery, or null. */
  findById(userId: string, id: string): Promise<NotificationDeliveryRecord | null>;
  /** A delivery by id whoever owns it, or null: for the delivery worker. */
  get(id: string): Promise<NotificationDeliveryRecord | null>;
  /** The digest with this key, or null. */
  findByDigestKey(digestKey: string): Promise<NotificationDeliveryRecord | null>;
  /**
   * Adds one event to a still-pending digest: `eventCount` + 1, `lastEventId` = `eventId`,
   * `updatedAt` = `at`. False if it is not pending any more (then the caller starts a new one).
   */
  appendToDigest(id: string, eventId: string, at: string): Promise<boolean>;
  /** How many deliveries of the channel with this `floodKey` were created at or after `sinceIso` (digests included). */
  countRecent(channelId: string, floodKey: string, sinceIso: string): Promise<number>;
  /**
   * Claims up to `limit` deliveries that are pending, due (`nextAttemptAt <= nowIso`), not held
   * (`leaseUntil` null or before `nowIso`) and whose channel is active, oldest due first, by
   * setting `leaseUntil` to `leaseUntilIso`, atomically: concurrent callers (nodes) never claim
   * the same delivery. Returns the claimed records (with the new lease).
   */
  claimDue(nowIso: string, leaseUntilIso: string, limit: number): Promise<NotificationDeliveryRecord[]>;
  /**
   * Applies `patch` only if the delivery is still pending with `attempts === expectedAttempts`
   * (a compare-and-set: of two workers recording the same attempt exactly one wins). The updated
   * record, or null.
   */
  recordAttempt(id: string, expectedAttempts: number, patch: NotificationDeliveryPatch): Promise<NotificationDeliveryRecord | null>;
  /** The user's channel's deliveries, newest first, optionally of one status; empty if the channel is not the user's. */
  listByChannel(
    userId: string,
    channelId: string,
    page: PageRequest,
    filter?: { status?: NotificationDeliveryRecord['status'] },
  ): Promise<NotificationDeliveryRecord[]>;
}
