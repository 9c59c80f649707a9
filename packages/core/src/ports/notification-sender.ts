import type { NotificationChannelKind, WebhookPayload } from '@stratbox/contract';

/** A channel's target with its secrets opened: only the sender sees it, and it is never logged. */
export interface ChannelTarget {
  kind: NotificationChannelKind;
  /** `webhook` and `discord`: the URL to POST to. */
  url?: string;
  /** `webhook`: the HMAC-SHA256 signing secret. */
  signingSecret?: string;
  /** `telegram`: the bot token. */
  botToken?: string;
  /** `telegram`: the chat id. */
  chatId?: string;
}

/** One attempt to deliver one payload (an event or a digest) to one channel. */
export interface SendRequest {
  channelId: string;
  target: ChannelTarget;
  payload: WebhookPayload;
  /** Sent as `Idempotency-Key` where the kind allows a header: the event id, or the digest's delivery id. */
  idempotencyKey: string;
  /** 1 for the first attempt. */
  attempt: number;
}

/** How an attempt went. */
export interface SendOutcome {
  ok: boolean;
  /** HTTP status of the answer; null when none came (refused target, DNS, connection, timeout). */
  statusCode: number | null;
  /** Why it failed, short (at most 200 characters) and masked: never a secret, a token or a URL's path; null on success. */
  error: string | null;
  /** False when trying again cannot help (e.g. a 400/401/403/404 answer); the delivery then fails at once. */
  retryable: boolean;
  /** The receiver asked to wait this long before the next attempt (`Retry-After`), when it did. */
  retryAfterMs?: number;
}

/**
 * Delivers notifications to one channel kind or to all of them. Guarantees every implementation gives:
 * - it never throws and never hangs: every failure, including a timeout, is a `SendOutcome`;
 * - every outbound request goes through the guarded HTTP client: no private, loopback,
 *   link-local or metadata address (after DNS, and the connection pinned to the checked
 *   address), no redirect followed, a timeout and a cap on the bytes read back;
 * - no secret (signing secret, bot token, Discord URL) reaches a log line or `SendOutcome.error`.
 */
export interface NotificationSender {
  send(request: SendRequest, signal?: AbortSignal): Promise<SendOutcome>;
}
