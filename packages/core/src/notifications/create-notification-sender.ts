import type { Clock } from '../ports/clock.js';
import type { NotificationSender } from '../ports/notification-sender.js';
import { createDiscordSender } from './discord-sender.js';
import type { GuardedHttpClient } from './guarded-http.js';
import { createTelegramSender } from './telegram-sender.js';
import { createWebhookSender } from './webhook-sender.js';

export interface NotificationSenderOptions {
  /** The guarded client every request goes through. */
  http: GuardedHttpClient;
  /** The Telegram Bot API's base URL (default `https://api.telegram.org`). */
  telegramApiBase?: string;
  clock?: Clock;
}

/** The sender for every channel kind: a signed webhook, Telegram or Discord, by `target.kind`. */
export function createNotificationSender({ http, telegramApiBase, clock }: NotificationSenderOptions): NotificationSender {
  const byKind: Record<string, NotificationSender> = {
    webhook: createWebhookSender({ http, clock }),
    telegram: createTelegramSender({ http, telegramApiBase, clock }),
    discord: createDiscordSender({ http, clock }),
  };
  return {
    async send(request, signal) {
      const sender = byKind[request.target.kind];
      if (!sender)
        return { ok: false, statusCode: null, error: `No sender for channels of kind ${String(request.target.kind).slice(0, 20)}`, retryable: false };
      return sender.send(request, signal);
    },
  };
}
