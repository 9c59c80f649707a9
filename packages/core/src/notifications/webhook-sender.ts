import { IDEMPOTENCY_KEY_HEADER, WEBHOOK_SIGNATURE_HEADER } from '@stratbox/contract';
import { type Clock, createSystemClock } from '../ports/clock.js';
import type { NotificationSender, SendOutcome, SendRequest } from '../ports/notification-sender.js';
import type { GuardedHttpClient } from './guarded-http.js';
import { cleanError, delivered, failedAnswer, failedExchange, parseRetryAfter, targetSecrets } from './send-outcome.js';
import { signWebhook } from './webhook-signature.js';

/** The `User-Agent` of every notification request. */
export const NOTIFICATION_USER_AGENT = 'Stratbox-Notifications/1';
/** Characters of a receiver's answer kept in an error. */
const ANSWER_EXCERPT_CHARS = 80;

export interface WebhookSenderOptions {
  http: GuardedHttpClient;
  clock?: Clock;
}

/**
 * Sends `webhook` channels: POSTs the payload as JSON, signed in `Stratbox-Signature` with the
 * channel's secret at the current time, with `Idempotency-Key`, `Stratbox-Event-Type` and
 * `User-Agent`. A 2xx is a delivery; `Retry-After` (seconds or an HTTP date) becomes `retryAfterMs`.
 */
export function createWebhookSender({ http, clock = createSystemClock() }: WebhookSenderOptions): NotificationSender {
  return {
    async send(request: SendRequest, signal?: AbortSignal): Promise<SendOutcome> {
      const { url, signingSecret } = request.target;
      const secrets = targetSecrets([signingSecret], [url]);
      if (!url || !signingSecret) return { ok: false, statusCode: null, error: 'The webhook channel has no URL or signing secret', retryable: false };
      try {
        const body = JSON.stringify(request.payload);
        const now = clock.now();
        const response = await http.post(url, {
          body,
          signal,
          headers: {
            'content-type': 'application/json',
            'user-agent': NOTIFICATION_USER_AGENT,
            [WEBHOOK_SIGNATURE_HEADER]: signWebhook(body, signingSecret, Math.floor(now.getTime() / 1000)),
            [IDEMPOTENCY_KEY_HEADER]: request.idempotencyKey,
            'stratbox-event-type': request.payload.type,
          },
        });
        if (response.status >= 200 && response.status < 300) return delivered(response.status);
        const excerpt = response.bodyExcerpt.trim().slice(0, ANSWER_EXCERPT_CHARS);
        return failedAnswer(response, excerpt ? cleanError(excerpt, secrets) : null, secrets, parseRetryAfter(response.headers['retry-after'], now));
      } catch (error) {
        return failedExchange(error, secrets);
      }
    },
  };
}
