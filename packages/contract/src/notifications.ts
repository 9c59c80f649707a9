import { z } from 'zod';
import { NextCursor, PageQuery, Timestamp } from './common.js';
import { DeploymentHalt } from './deployments.js';
import { DriftBreach } from './drift.js';
import { NotificationChannelId, NotificationDeliveryId, NotificationEventId } from './ids.js';

/**
 * Notifications (docs/notifications.md): one catalogue of the events Stratbox tells its users
 * about, the channels they are delivered to (a signed webhook, Telegram, Discord) and the log
 * of each delivery.
 */

/** How much an event matters. A channel takes events of its `minSeverity` and above. */
export const NotificationSeverity = z.enum(['info', 'warning', 'critical']);
export type NotificationSeverity = z.infer<typeof NotificationSeverity>;

/** `info` < `warning` < `critical`. */
export const SEVERITY_RANK: Readonly<Record<NotificationSeverity, number>> = { info: 0, warning: 1, critical: 2 };

const RunError = z.object({ code: z.string(), message: z.string() });

/**
 * The event catalogue: each type with its severity, what it means, and the schema of its `data`.
 * Nothing here carries a secret or a strategy's source.
 */
export const NOTIFICATION_EVENT_CATALOGUE = {
  'deployment.started': {
    severity: 'info',
    description: 'A deployment passed its pre-flight checks and is running (on create, restart or resume after a restart of the service).',
    data: z.object({ deploymentId: z.string(), strategyId: z.string(), strategyVersion: z.number().int(), symbols: z.array(z.string()) }),
  },
  'deployment.failed': {
    severity: 'critical',
    description: 'A deployment failed (pre-flight refused it, the exchange kept failing, the strategy threw...); `error` says why.',
    data: z.object({ deploymentId: z.string(), error: RunError }),
  },
  'deployment.stopped': {
    severity: 'info',
    description: 'A deployment was stopped by its owner and has closed what it held.',
    data: z.object({ deploymentId: z.string() }),
  },
  'deployment.halted': {
    severity: 'critical',
    description: 'A risk limit was breached or reconciliation found a mismatch: the deployment is halted; `halt` has the figures.',
    data: z.object({ deploymentId: z.string(), halt: DeploymentHalt }),
  },
  'deployment.order.filled': {
    severity: 'info',
    description: 'An order of a deployment filled completely. A burst of fills on one deployment is batched into a digest (see flood control).',
    data: z.object({
      deploymentId: z.string(),
      order: z.object({
        id: z.string(),
        symbol: z.string(),
        side: z.enum(['buy', 'sell']),
        type: z.string(),
        quantity: z.number(),
        filledQuantity: z.number(),
        averagePrice: z.number().nullable(),
        fee: z.number(),
      }),
    }),
  },
  'deployment.heartbeat.missed': {
    severity: 'critical',
    description: 'The dead-man alert: a running deployment processed no candle for 3 of its periods. Sent once per silence, not once per poll.',
    data: z.object({ deploymentId: z.string(), timeframe: z.string(), lastCandleAt: Timestamp.nullable(), missedPeriods: z.number().int() }),
  },
  'deployment.drift': {
    severity: 'warning',
    description: "A deployment's drift report crossed one of its thresholds (docs/drift.md): `breached` names each metric with its value and limit.",
    data: z.object({ deploymentId: z.string(), window: z.object({ from: Timestamp, to: Timestamp }), breached: z.array(DriftBreach) }),
  },
  'backtest.completed': {
    severity: 'info',
    description: 'A backtest completed; `metrics` are its headline figures.',
    data: z.object({
      backtestId: z.string(),
      strategyId: z.string(),
      metrics: z.object({
        totalReturn: z.number().nullable(),
        maxDrawdown: z.number().nullable(),
        sharpe: z.number().nullable(),
        tradeCount: z.number().nullable(),
      }),
    }),
  },
  'backtest.failed': {
    severity: 'warning',
    description: "A backtest failed; `error` says why (a bought strategy's error is given without its source or log).",
    data: z.object({ backtestId: z.string(), strategyId: z.string(), error: RunError }),
  },
  'optimization.completed': {
    severity: 'info',
    description: 'An optimization completed.',
    data: z.object({ optimizationId: z.string(), strategyId: z.string(), trialsDone: z.number().int(), bestScore: z.number().nullable() }),
  },
  'optimization.failed': {
    severity: 'warning',
    description: 'An optimization failed; `error` says why.',
    data: z.object({ optimizationId: z.string(), strategyId: z.string(), trialsDone: z.number().int(), error: RunError }),
  },
  'listing.purchased': {
    severity: 'info',
    description: 'To the seller: someone bought one of their listings (the buyer is not named).',
    data: z.object({ listingId: z.string(), purchaseId: z.string(), title: z.string() }),
  },
  'review.created': {
    severity: 'info',
    description: 'To the seller: a buyer reviewed one of their listings.',
    data: z.object({ listingId: z.string(), reviewId: z.string(), rating: z.number().int(), title: z.string() }),
  },
  'subscription.changed': {
    severity: 'info',
    description: 'The subscription changed tier or status (checkout, renewal failure, cancellation).',
    data: z.object({ tier: z.string(), status: z.string(), previousTier: z.string().nullable(), previousStatus: z.string().nullable() }),
  },
  'usage.limit_near': {
    severity: 'warning',
    description: 'A usage counter passed 80 % of its limit for the period (once per counter and period).',
    data: z.object({ counter: z.string(), used: z.number(), limit: z.number(), periodStart: Timestamp }),
  },
  'usage.limit_reached': {
    severity: 'critical',
    description: 'A usage counter reached its limit for the period (once per counter and period).',
    data: z.object({ counter: z.string(), used: z.number(), limit: z.number(), periodStart: Timestamp }),
  },
  'channel.paused': {
    severity: 'warning',
    description: 'One of your notification channels kept failing and was paused; sent to your other channels.',
    data: z.object({ channelId: z.string(), kind: z.string(), label: z.string(), reason: z.string() }),
  },
  'notification.test': {
    severity: 'info',
    description: 'A test event, sent by `POST /api/notification-channels/:id/test` to that channel only.',
    data: z.object({ channelId: z.string() }),
  },
} as const satisfies Record<string, { severity: NotificationSeverity; description: string; data: z.ZodType }>;

type Catalogue = typeof NOTIFICATION_EVENT_CATALOGUE;
export type NotificationEventType = keyof Catalogue;
export const NOTIFICATION_EVENT_TYPES = Object.keys(NOTIFICATION_EVENT_CATALOGUE) as [NotificationEventType, ...NotificationEventType[]];
export const NotificationEventType = z.enum(NOTIFICATION_EVENT_TYPES);
/** The data of one event type. */
export type NotificationEventData<T extends NotificationEventType> = z.infer<Catalogue[T]['data']>;

/** The kinds of record an event is about. */
export const NotificationSubjectKind = z.enum(['deployment', 'backtest', 'optimization', 'listing', 'subscription', 'usage', 'channel']);
export type NotificationSubjectKind = z.infer<typeof NotificationSubjectKind>;

const eventBase = {
  id: NotificationEventId.meta({ description: 'Unique per event; also the idempotency key of every delivery of it (`Idempotency-Key`)' }),
  severity: NotificationSeverity,
  time: Timestamp,
  userId: z.string().meta({ description: 'The user the event is for' }),
  subject: z.object({ kind: NotificationSubjectKind, id: z.string() }).meta({ description: 'The record the event is about' }),
  summary: z.string().max(500).meta({ description: 'One line for people, e.g. "Backtest bt_... completed: +4.20 %"' }),
};

function eventSchema<T extends NotificationEventType>(type: T) {
  return z.object({ ...eventBase, type: z.literal(type), data: NOTIFICATION_EVENT_CATALOGUE[type].data as Catalogue[T]['data'] });
}

/** One event, as a webhook receives it, as `user:<id>:events` carries it and as the events list returns it. */
export const NotificationEvent = z.discriminatedUnion(
  'type',
  NOTIFICATION_EVENT_TYPES.map((type) => eventSchema(type)) as unknown as [
    ReturnType<typeof eventSchema<NotificationEventType>>,
    ...ReturnType<typeof eventSchema<NotificationEventType>>[],
  ],
);
export type NotificationEvent = { [T in NotificationEventType]: z.infer<ReturnType<typeof eventSchema<T>>> }[NotificationEventType];

/**
 * What a channel receives instead of a storm of identical events (the same type about the same
 * record): the events past the first few in a minute are counted into one digest, sent when that
 * minute ends. Nothing is dropped: `count` says how many it stands for and every event stays in
 * `GET /api/notification-events`.
 */
export const NotificationDigest = z.object({
  id: NotificationDeliveryId.meta({ description: 'The digest delivery; also its idempotency key' }),
  type: z.literal('digest'),
  severity: NotificationSeverity,
  time: Timestamp,
  userId: z.string(),
  subject: z.object({ kind: NotificationSubjectKind, id: z.string() }),
  summary: z.string().max(500),
  digest: z.object({
    eventType: NotificationEventType,
    count: z.number().int().min(1),
    from: Timestamp.meta({ description: 'Start of the minute the events fell in' }),
    to: Timestamp.meta({ description: 'End of that minute' }),
    firstEventId: NotificationEventId,
    lastEventId: NotificationEventId,
  }),
});
export type NotificationDigest = z.infer<typeof NotificationDigest>;

/** The JSON body of a webhook delivery: one event, or a digest of many. */
export const WebhookPayload = z.union([NotificationEvent, NotificationDigest]);
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** The header carrying a webhook's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'Stratbox-Signature';
/** The header carrying the delivery's idempotency key (the event id, or the digest's id). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** How old a signature a receiver should accept, in seconds (replays older than this are refused). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export const NotificationChannelKind = z.enum(['webhook', 'telegram', 'discord']);
export type NotificationChannelKind = z.infer<typeof NotificationChannelKind>;

/** The event types a channel takes: a list of types, or `["*"]` for all. */
export const ChannelEventFilter = z
  .array(z.union([NotificationEventType, z.literal('*')]))
  .min(1)
  .max(NOTIFICATION_EVENT_TYPES.length + 1)
  .meta({ description: 'Event types this channel receives; `["*"]` for every type' });

const label = z.string().trim().min(1).max(100);
const httpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .meta({ description: 'HTTPS (plain HTTP only for a host the operator admits with STRATBOX_NOTIFY_ALLOW_HOSTS)' });
const botToken = z
  .string()
  .regex(/^\d{3,20}:[A-Za-z0-9_-]{20,100}$/, { message: 'A Telegram bot token, e.g. 123456:ABC-DEF...' })
  .meta({ description: 'The bot token from @BotFather; write-only' });
const chatId = z
  .string()
  .regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,63})$/, { message: 'A numeric chat id or an @channelusername' })
  .meta({ description: 'The chat to send to: a numeric id, or @channelusername' });

const common = {
  label,
  events: ChannelEventFilter.default(['*']),
  minSeverity: NotificationSeverity.default('info'),
};

export const CreateNotificationChannelBody = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('webhook'), url: httpUrl, ...common }),
    z.strictObject({ kind: z.literal('telegram'), botToken, chatId, ...common }),
    z.strictObject({
      kind: z.literal('discord'),
      url: httpUrl.meta({ description: 'A Discord webhook URL (https://discord.com/api/webhooks/...); write-only' }),
      ...common,
    }),
  ])
  .meta({ description: 'A notification channel. Its secrets (the URL of a Discord webhook, a bot token) are write-only.' });
export type CreateNotificationChannelBody = z.infer<typeof CreateNotificationChannelBody>;

/**
 * Changes a channel; fields left out stay. `paused: false` resumes a paused channel (and clears
 * its failure count); `url`, `botToken` and `chatId` replace the target (the kind's own fields
 * only; a changed target is checked as at create).
 */
export const UpdateNotificationChannelBody = z
  .strictObject({
    label: label.optional(),
    events: ChannelEventFilter.optional(),
    minSeverity: NotificationSeverity.optional(),
    paused: z.boolean().optional(),
    url: httpUrl.optional(),
    botToken: botToken.optional(),
    chatId: chatId.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'Give at least one field to change' });
export type UpdateNotificationChannelBody = z.infer<typeof UpdateNotificationChannelBody>;

export const NotificationChannelStatus = z.enum(['active', 'paused']);

/** A channel as the API returns it: never a secret. */
export const NotificationChannel = z.object({
  id: NotificationChannelId,
  kind: NotificationChannelKind,
  label: z.string(),
  events: z.array(z.union([NotificationEventType, z.literal('*')])),
  minSeverity: NotificationSeverity,
  status: NotificationChannelStatus,
  pausedReason: z.string().nullable().meta({ description: 'Why the channel was paused (by its owner, or after failing deliveries)' }),
  target: z.string().meta({ description: 'Where it sends, without secrets: a webhook\'s origin, a Telegram chat id, "discord webhook …<last 4>"' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type NotificationChannel = z.infer<typeof NotificationChannel>;

/** The answer to create: a webhook channel's signing secret is shown this once, never again. */
export const CreatedNotificationChannel = NotificationChannel.extend({
  signingSecret: z
    .string()
    .nullable()
    .meta({ description: 'Webhook channels: the HMAC-SHA256 signing secret (`whsec_...`), returned only here. Null for other kinds.' }),
});
export type CreatedNotificationChannel = z.infer<typeof CreatedNotificationChannel>;

export const ListNotificationChannelsQuery = z.strictObject({ ...PageQuery });
export const NotificationChannelList = z.object({ channels: z.array(NotificationChannel), nextCursor: NextCursor });

export const NotificationDeliveryStatus = z.enum(['pending', 'delivered', 'failed']);

/** One delivery of an event (or a digest) to a channel, with its attempts. No response body is kept beyond a short masked excerpt. */
export const NotificationDelivery = z.object({
  id: NotificationDeliveryId,
  channelId: NotificationChannelId,
  eventId: NotificationEventId.meta({ description: 'The event (for a digest, the first it counts); the idempotency key of an event delivery' }),
  eventType: NotificationEventType,
  digest: z.boolean().meta({ description: 'True when this delivery is a digest of `eventCount` events' }),
  eventCount: z.number().int().min(1),
  status: NotificationDeliveryStatus,
  attempts: z.number().int().min(0),
  lastStatusCode: z.number().int().nullable().meta({ description: 'HTTP status of the last attempt; null when none answered' }),
  lastError: z.string().nullable().meta({ description: 'Why the last attempt failed: a short, masked excerpt' }),
  nextAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deliveredAt: Timestamp.nullable(),
});
export type NotificationDelivery = z.infer<typeof NotificationDelivery>;

export const ListNotificationDeliveriesQuery = z.strictObject({ ...PageQuery, status: NotificationDeliveryStatus.optional() });
export const NotificationDeliveryList = z.object({ deliveries: z.array(NotificationDelivery), nextCursor: NextCursor });

export const ListNotificationEventsQuery = z.strictObject({ ...PageQuery });
export const NotificationEventList = z.object({ events: z.array(NotificationEvent), nextCursor: NextCursor });
