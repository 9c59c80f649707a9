import { z } from 'zod';
import { ErrorCodeSchema } from './common.js';
import { BacktestProgressEvent } from './backtests.js';
import { DeploymentOrderEvent } from './deployments.js';
import { OptimizationProgressEvent } from './optimizations.js';
import { NotificationEvent } from './notifications.js';
import { idPattern } from './ids.js';

/** The one WebSocket endpoint, on the same server as the HTTP API (docs/api-contract.md, "WebSocket"). */
export const WS_PATH = '/ws';

/** The user ids a `user:<id>:events` channel may name (Stratbox's `usr_...`, or a host's own ids). */
const USER_CHANNEL_ID = '[A-Za-z0-9_.@-]{1,128}';

/**
 * `backtest:<id>:progress`, `deployment:<id>:orders`, `optimization:<id>:progress` (docs/api-contract.md,
 * "WebSocket") or `user:<id>:events` (the caller's notification events, docs/notifications.md).
 */
export const CHANNEL_PATTERN = new RegExp(
  `^(?:backtest:(${idPattern('backtest')}):progress|deployment:(${idPattern('deployment')}):orders|optimization:(${idPattern('optimization')}):progress|user:(${USER_CHANNEL_ID}):events)$`,
);

export const ChannelName = z.string().max(200).regex(CHANNEL_PATTERN, {
  message: 'Expected backtest:<bt_id>:progress, deployment:<dep_id>:orders, optimization:<opt_id>:progress or user:<user id>:events',
});

/** Channel of one backtest's progress. */
export type BacktestProgressChannel = `backtest:${string}:progress`;
/** Channel of one deployment's order updates. */
export type DeploymentOrdersChannel = `deployment:${string}:orders`;
/** Channel of one optimization's progress. */
export type OptimizationProgressChannel = `optimization:${string}:progress`;
/** Channel of one user's notification events. */
export type UserEventsChannel = `user:${string}:events`;
/** Any channel name, typed by kind. */
export type Channel = BacktestProgressChannel | DeploymentOrdersChannel | OptimizationProgressChannel | UserEventsChannel;
/** The kinds of record a channel can address. */
export type ChannelKind = 'backtest' | 'deployment' | 'optimization' | 'user';

/** Data of an event on `backtest:<id>:progress`. */
export type BacktestProgressData = z.infer<typeof BacktestProgressEvent>;
/** Data of an event on `deployment:<id>:orders`. */
export type DeploymentOrderData = z.infer<typeof DeploymentOrderEvent>;
/** Data of an event on `optimization:<id>:progress`. */
export type OptimizationProgressData = z.infer<typeof OptimizationProgressEvent>;

/** Payload type carried by each channel kind. */
export type ChannelData<C extends string> = C extends BacktestProgressChannel
  ? BacktestProgressData
  : C extends DeploymentOrdersChannel
    ? DeploymentOrderData
    : C extends OptimizationProgressChannel
      ? OptimizationProgressData
      : C extends UserEventsChannel
        ? NotificationEvent
        : never;

/** `backtest:<id>:progress`. */
export function backtestProgressChannel(backtestId: string): BacktestProgressChannel {
  return `backtest:${backtestId}:progress`;
}

/** `deployment:<id>:orders`. */
export function deploymentOrdersChannel(deploymentId: string): DeploymentOrdersChannel {
  return `deployment:${deploymentId}:orders`;
}

/** `optimization:<id>:progress`. */
export function optimizationProgressChannel(optimizationId: string): OptimizationProgressChannel {
  return `optimization:${optimizationId}:progress`;
}

/** `user:<id>:events`. */
export function userEventsChannel(userId: string): UserEventsChannel {
  return `user:${userId}:events`;
}

/** The kind and record id a channel name addresses, or null when the name is malformed. */
export function parseChannel(name: string): { kind: ChannelKind; id: string } | null {
  if (typeof name !== 'string' || name.length > 200) return null;
  const match = CHANNEL_PATTERN.exec(name);
  if (!match) return null;
  if (match[1] !== undefined) return { kind: 'backtest', id: match[1] };
  if (match[2] !== undefined) return { kind: 'deployment', id: match[2] };
  return match[3] !== undefined ? { kind: 'optimization', id: match[3] } : { kind: 'user', id: match[4]! };
}

/** Backtest (and optimization) statuses after which no more progress events come: the last event of a run carries one. */
export const FINAL_BACKTEST_STATUSES = ['completed', 'failed', 'cancelled'] as const;

/** True for the last progress event of a run (status completed, failed or cancelled). */
export function isFinalProgress(data: { status: string }): boolean {
  return (FINAL_BACKTEST_STATUSES as readonly string[]).includes(data.status);
}

/** The schema of the data carried by a channel kind. */
export function channelDataSchema(
  kind: ChannelKind,
): typeof BacktestProgressEvent | typeof DeploymentOrderEvent | typeof OptimizationProgressEvent | typeof NotificationEvent {
  if (kind === 'user') return NotificationEvent;
  return kind === 'backtest' ? BacktestProgressEvent : kind === 'deployment' ? DeploymentOrderEvent : OptimizationProgressEvent;
}

const ClientRef = z.string().min(1).max(64);

export const WsAuthMessage = z.strictObject({ type: z.literal('auth'), token: z.string().min(1).max(1024) });
export const WsSubscribeMessage = z.strictObject({ type: z.literal('subscribe'), channel: ChannelName, id: ClientRef });
export const WsUnsubscribeMessage = z.strictObject({ type: z.literal('unsubscribe'), channel: ChannelName, id: ClientRef });
export const WsClientMessage = z.discriminatedUnion('type', [WsAuthMessage, WsSubscribeMessage, WsUnsubscribeMessage]);
export type WsClientMessage = z.infer<typeof WsClientMessage>;
/** The `type` values a client may send. */
export const WS_CLIENT_MESSAGE_TYPES = ['auth', 'subscribe', 'unsubscribe'] as const;

export const WsAckMessage = z.object({ type: z.enum(['subscribed', 'unsubscribed']), channel: ChannelName, id: ClientRef });
export const WsAuthenticatedMessage = z.object({ type: z.literal('authenticated'), userId: z.string() });
export const WsEventMessage = z
  .object({
    type: z.literal('event'),
    channel: ChannelName,
    data: z.union([BacktestProgressEvent, DeploymentOrderEvent, OptimizationProgressEvent, NotificationEvent]),
  })
  .refine(
    (m) => {
      const parsed = parseChannel(m.channel);
      if (!parsed) return false;
      if ('userId' in m.data && 'type' in m.data) return parsed.kind === 'user' && m.data.userId === parsed.id;
      if ('backtestId' in m.data) return parsed.kind === 'backtest' && m.data.backtestId === parsed.id;
      if ('optimizationId' in m.data) return parsed.kind === 'optimization' && m.data.optimizationId === parsed.id;
      return parsed.kind === 'deployment' && m.data.deploymentId === parsed.id;
    },
    { message: 'The event data does not belong to its channel', path: ['data'] },
  );
export const WsErrorMessage = z.object({
  type: z.literal('error'),
  /** The client ref of the message this answers; null when it had none (malformed, binary, ...). */
  id: ClientRef.nullable(),
  error: z.object({ code: ErrorCodeSchema, message: z.string(), details: z.unknown().optional() }),
});
export const WsServerMessage = z.union([WsAckMessage, WsAuthenticatedMessage, WsEventMessage, WsErrorMessage]);
export type WsServerMessage = z.infer<typeof WsServerMessage>;

/**
 * Close codes of the `/ws` endpoint. 1000-1015 are the standard codes of RFC 6455; 4000-4999
 * are Stratbox's, mnemonic of the HTTP status of the same meaning (4401 ~ 401). A client should
 * reconnect (with backoff) after any code but `UNAUTHENTICATED`, which needs new credentials.
 */
export const WS_CLOSE_CODES = {
  /** The client or server closed the socket on purpose. */
  NORMAL: 1000,
  /** The server is shutting down or restarting: reconnect. */
  GOING_AWAY: 1001,
  /** A text frame that is not valid UTF-8. */
  INVALID_PAYLOAD: 1007,
  /** A frame above the server's hard frame limit (`maxPayloadBytes`); the socket is closed at once. */
  MESSAGE_TOO_BIG: 1009,
  /** The server failed unexpectedly (e.g. the authenticator threw); reconnect with backoff. */
  INTERNAL_ERROR: 1011,
  /** Bad credentials (header or `auth` message), or a first message other than `auth`. Do not retry with the same token. */
  UNAUTHENTICATED: 4401,
  /** No `auth` message arrived within the server's auth timeout. */
  AUTH_TIMEOUT: 4408,
  /** The user already has as many open sockets as the server allows. */
  TOO_MANY_SOCKETS: 4429,
  /** The client read too slowly: its unsent bytes passed the server's cap. Reconnect and re-subscribe. */
  SLOW_CONSUMER: 4509,
} as const;
export type WsCloseCode = (typeof WS_CLOSE_CODES)[keyof typeof WS_CLOSE_CODES];
