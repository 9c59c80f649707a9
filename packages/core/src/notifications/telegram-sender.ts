import { type Clock, createSystemClock } from '../ports/clock.js';
import type { NotificationSender, SendOutcome, SendRequest } from '../ports/notification-sender.js';
import type { GuardedHttpClient } from './guarded-http.js';
import { renderMessage, TELEGRAM_MAX_CHARS } from './render-message.js';
import { delivered, failedAnswer, failedExchange, parseRetryAfter, targetSecrets } from './send-outcome.js';
import { NOTIFICATION_USER_AGENT } from './webhook-sender.js';

/** Where the Telegram Bot API answers unless the operator says otherwise (`STRATBOX_TELEGRAM_API_BASE`). */
export const TELEGRAM_API_BASE = 'https://api.telegram.org';

export interface TelegramSenderOptions {
  http: GuardedHttpClient;
  /** The Bot API's base URL, without a trailing slash. Default `https://api.telegram.org`. */
  telegramApiBase?: string;
  clock?: Clock;
}

/** What the Bot API answers on failure. */
interface TelegramError {
  ok?: boolean;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

function parseAnswer(text: string): TelegramError | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as TelegramError) : null;
  } catch {
    return null;
  }
}

/**
 * Sends `telegram` channels through the Bot API's `sendMessage` (plain text, no parse_mode, link
 * previews off). The bot token is in the request path: it is masked in every error. A 429's
 * `retry_after` becomes `retryAfterMs`; 400, 401, 403 and 404 (bad chat, revoked token, bot
 * blocked or removed) are not retried.
 */
export function createTelegramSender({ http, telegramApiBase = TELEGRAM_API_BASE, clock = createSystemClock() }: TelegramSenderOptions): NotificationSender {
  const base = telegramApiBase.replace(/\/+$/, '');
  return {
    async send(request: SendRequest, signal?: AbortSignal): Promise<SendOutcome> {
      const { botToken, chatId } = request.target;
      const url = `${base}/bot${botToken ?? ''}/sendMessage`;
      const secrets = targetSecrets([botToken, botToken ? `bot${botToken}` : undefined], [url]);
      if (!botToken || !chatId) return { ok: false, statusCode: null, error: 'The Telegram channel has no bot token or chat id', retryable: false };
      try {
        const now = clock.now();
        const response = await http.post(url, {
          signal,
          headers: { 'content-type': 'application/json', 'user-agent': NOTIFICATION_USER_AGENT },
          body: JSON.stringify({ chat_id: chatId, text: renderMessage(request.payload, TELEGRAM_MAX_CHARS), disable_web_page_preview: true }),
        });
        const answer = parseAnswer(response.bodyExcerpt);
        if (response.status >= 200 && response.status < 300 && (answer === null || answer.ok !== false)) return delivered(response.status);
        const retryAfter = answer?.parameters?.retry_after;
        const retryAfterMs =
          typeof retryAfter === 'number' && retryAfter >= 0 ? Math.ceil(retryAfter * 1000) : parseRetryAfter(response.headers['retry-after'], now);
        const migrated = answer?.parameters?.migrate_to_chat_id;
        const detail = [
          typeof answer?.description === 'string' ? `Telegram: ${answer.description}` : 'Telegram refused the message',
          migrated === undefined ? '' : ` (the group is now the supergroup ${migrated}: update the chat id)`,
        ].join('');
        return failedAnswer(response, detail, secrets, retryAfterMs);
      } catch (error) {
        return failedExchange(error, secrets);
      }
    },
  };
}
