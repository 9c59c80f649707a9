import { type Clock, createSystemClock } from '../ports/clock.js';
import type { NotificationSender, SendOutcome, SendRequest } from '../ports/notification-sender.js';
import type { GuardedHttpClient } from './guarded-http.js';
import { DISCORD_MAX_CHARS, renderMessage } from './render-message.js';
import { delivered, failedAnswer, failedExchange, parseRetryAfter, targetSecrets } from './send-outcome.js';
import { NOTIFICATION_USER_AGENT } from './webhook-sender.js';

/** What a Discord webhook URL starts with unless the operator says otherwise (`STRATBOX_DISCORD_WEBHOOK_BASE`). */
export const DISCORD_WEBHOOK_BASE = 'https://discord.com/api/webhooks/';

/**
 * Whether `url` is a Discord webhook URL: it starts with `discordWebhookBase` (after the URL is
 * normalised, so `..` cannot climb out of it) and goes on with `<webhook id>/<token>`, optionally
 * followed by a query (such as `thread_id`).
 */
export function isDiscordWebhookUrl(url: string, discordWebhookBase: string = DISCORD_WEBHOOK_BASE): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const base = discordWebhookBase.endsWith('/') ? discordWebhookBase : `${discordWebhookBase}/`;
  const path = `${parsed.origin}${parsed.pathname}`;
  if (!path.startsWith(base) || parsed.username !== '' || parsed.password !== '' || parsed.hash !== '') return false;
  return /^\d{1,25}\/[A-Za-z0-9_-]{1,200}$/.test(path.slice(base.length));
}

export interface DiscordSenderOptions {
  http: GuardedHttpClient;
  clock?: Clock;
}

interface DiscordAnswer {
  message?: string;
  retry_after?: number;
}

function parseAnswer(text: string): DiscordAnswer | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as DiscordAnswer) : null;
  } catch {
    return null;
  }
}

/**
 * Sends `discord` channels: POSTs `{ content, allowed_mentions: { parse: [] } }` to the channel's
 * webhook URL with `?wait=true` (content at most 2000 characters, no mention pings). The URL is
 * the secret: it is masked in every error. A 429's `retry_after` (seconds, a fraction) or
 * `Retry-After` becomes `retryAfterMs`; 401 and 404 (webhook deleted) are not retried.
 */
export function createDiscordSender({ http, clock = createSystemClock() }: DiscordSenderOptions): NotificationSender {
  return {
    async send(request: SendRequest, signal?: AbortSignal): Promise<SendOutcome> {
      const { url } = request.target;
      const secrets = targetSecrets([], [url]);
      if (!url) return { ok: false, statusCode: null, error: 'The Discord channel has no webhook URL', retryable: false };
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return { ok: false, statusCode: null, error: 'The Discord webhook URL is not valid', retryable: false };
      }
      target.searchParams.set('wait', 'true');
      try {
        const now = clock.now();
        const response = await http.post(target.href, {
          signal,
          headers: { 'content-type': 'application/json', 'user-agent': NOTIFICATION_USER_AGENT },
          body: JSON.stringify({ content: renderMessage(request.payload, DISCORD_MAX_CHARS), allowed_mentions: { parse: [] } }),
        });
        if (response.status >= 200 && response.status < 300) return delivered(response.status);
        const answer = parseAnswer(response.bodyExcerpt);
        const retryAfterMs =
          typeof answer?.retry_after === 'number' && answer.retry_after >= 0
            ? Math.ceil(answer.retry_after * 1000)
            : parseRetryAfter(response.headers['retry-after'], now);
        const detail = typeof answer?.message === 'string' ? `Discord: ${answer.message}` : 'Discord refused the message';
        return failedAnswer(response, detail, secrets, retryAfterMs);
      } catch (error) {
        return failedExchange(error, secrets);
      }
    },
  };
}
