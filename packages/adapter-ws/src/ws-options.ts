import { WS_PATH, type Authenticator, type Logger } from '@stratbox/core';

/** Options of `attachStratboxWs`. Every limit has a default fit for a public service. */
export interface StratboxWsOptions {
  /** The endpoint's path (default `/ws`). Upgrades to other paths are left to other listeners, or answered 404 when there is none. */
  path?: string;
  /** Who is calling; default: the Stratbox instance's authenticator. The `auth` message's token is passed as `Authorization: Bearer <token>`. */
  authenticate?: Authenticator;
  /** Refuse handshakes (403) whose `Origin` this returns false for. Default: any origin (tokens are not ambient credentials). */
  verifyOrigin?: (origin: string | undefined) => boolean;
  /** A socket without credentials on the upgrade must send `auth` within this time (default 5000 ms), or is closed with 4408. */
  authTimeoutMs?: number;
  /** Ping every socket this often (default 30000 ms); a socket that has not answered the previous ping is dropped. 0 disables. */
  heartbeatIntervalMs?: number;
  /** Subscriptions one socket may hold (default 100); one more answers RATE_LIMITED. */
  maxSubscriptionsPerSocket?: number;
  /** Open authenticated sockets per user (default 20); one more is answered RATE_LIMITED and closed with 4429. */
  maxSocketsPerUser?: number;
  /** Largest client message (default 4096 bytes); a larger one answers PAYLOAD_TOO_LARGE and is ignored. */
  maxMessageBytes?: number;
  /** Largest frame the server reads at all (default 65536 bytes); a larger one closes the socket with 1009. */
  maxPayloadBytes?: number;
  /** Past this many unsent bytes on a socket (default 256 KiB), intermediate progress events are dropped for it (never a final one, never an order). */
  dropProgressAboveBytes?: number;
  /** Past this many unsent bytes (default 1 MiB) the socket is closed with 4509 instead of buffering more. */
  maxBufferedBytes?: number;
  /** Client messages per socket: bursts of `burst`, refilled at `perSecond` (default 200 and 50). Over the rate answers RATE_LIMITED. */
  messageRate?: { burst: number; perSecond: number };
  /** Default: the Stratbox instance's logger. */
  logger?: Logger;
}

export type ResolvedWsOptions = Required<Omit<StratboxWsOptions, 'verifyOrigin' | 'authenticate' | 'logger'>> & Pick<StratboxWsOptions, 'verifyOrigin'>;

export const WS_DEFAULTS = {
  path: WS_PATH,
  authTimeoutMs: 5_000,
  heartbeatIntervalMs: 30_000,
  maxSubscriptionsPerSocket: 100,
  maxSocketsPerUser: 20,
  maxMessageBytes: 4_096,
  maxPayloadBytes: 65_536,
  dropProgressAboveBytes: 256 * 1024,
  maxBufferedBytes: 1024 * 1024,
  messageRate: { burst: 200, perSecond: 50 },
} as const satisfies Omit<ResolvedWsOptions, 'verifyOrigin'>;

/** Options with defaults filled in; throws a TypeError for values that make no sense. */
export function resolveWsOptions(options: StratboxWsOptions): ResolvedWsOptions {
  const resolved: ResolvedWsOptions = {
    path: options.path ?? WS_DEFAULTS.path,
    authTimeoutMs: options.authTimeoutMs ?? WS_DEFAULTS.authTimeoutMs,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? WS_DEFAULTS.heartbeatIntervalMs,
    maxSubscriptionsPerSocket: options.maxSubscriptionsPerSocket ?? WS_DEFAULTS.maxSubscriptionsPerSocket,
    maxSocketsPerUser: options.maxSocketsPerUser ?? WS_DEFAULTS.maxSocketsPerUser,
    maxMessageBytes: options.maxMessageBytes ?? WS_DEFAULTS.maxMessageBytes,
    maxPayloadBytes: options.maxPayloadBytes ?? Math.max(WS_DEFAULTS.maxPayloadBytes, options.maxMessageBytes ?? 0),
    dropProgressAboveBytes: options.dropProgressAboveBytes ?? WS_DEFAULTS.dropProgressAboveBytes,
    maxBufferedBytes: options.maxBufferedBytes ?? Math.max(WS_DEFAULTS.maxBufferedBytes, options.dropProgressAboveBytes ?? 0),
    messageRate: options.messageRate ?? WS_DEFAULTS.messageRate,
    ...(options.verifyOrigin ? { verifyOrigin: options.verifyOrigin } : {}),
  };
  if (!resolved.path.startsWith('/')) throw new TypeError(`path must start with /, got ${resolved.path}`);
  for (const name of [
    'authTimeoutMs',
    'maxSubscriptionsPerSocket',
    'maxSocketsPerUser',
    'maxMessageBytes',
    'maxPayloadBytes',
    'dropProgressAboveBytes',
    'maxBufferedBytes',
  ] as const) {
    if (!(resolved[name] > 0)) throw new TypeError(`${name} must be a positive number, got ${resolved[name]}`);
  }
  if (!(resolved.heartbeatIntervalMs >= 0)) throw new TypeError('heartbeatIntervalMs must be 0 or more');
  if (resolved.maxPayloadBytes < resolved.maxMessageBytes) throw new TypeError('maxPayloadBytes must be at least maxMessageBytes');
  if (resolved.maxBufferedBytes < resolved.dropProgressAboveBytes) throw new TypeError('maxBufferedBytes must be at least dropProgressAboveBytes');
  if (!(resolved.messageRate.burst >= 1 && resolved.messageRate.perSecond > 0)) throw new TypeError('messageRate needs burst >= 1 and perSecond > 0');
  return resolved;
}
