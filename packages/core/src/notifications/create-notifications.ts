import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { Logger } from '../ports/logger.js';
import type { NotificationSender } from '../ports/notification-sender.js';
import type { SecretBox } from '../ports/secret-box.js';
import type { Store } from '../ports/store.js';
import { createNotificationSender } from './create-notification-sender.js';
import { createDeliveryAttempt } from './delivery-attempt.js';
import { createDeliveryLoop } from './delivery-loop.js';
import { createNotificationDispatcher } from './dispatcher.js';
import { createGuardedHttpClient, type HostResolver } from './guarded-http.js';
import { createNotificationService } from './notification-service.js';
import { resolveNotificationSettings, type NotificationsConfig } from './notification-settings.js';

export interface NotificationsDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  secretBox: SecretBox;
  config?: NotificationsConfig;
  /** How many channels the user's plan allows. */
  channelLimit: (userId: string) => Promise<number>;
  /** Replaces the senders (tests); default: the guarded webhook, Telegram and Discord senders. */
  sender?: NotificationSender;
  /** Replaces DNS for the guarded HTTP client (tests of DNS changing). */
  lookup?: HostResolver;
}

/** Notifications assembled: the service behind the routes, and the loop that dispatches and delivers (`start`/`close`). */
export function createNotifications({ store, clock, logger, events, secretBox, config, channelLimit, sender, lookup }: NotificationsDeps) {
  const settings = resolveNotificationSettings(config);
  const http = createGuardedHttpClient({
    allowHosts: settings.allowHosts,
    timeoutMs: settings.timeoutMs,
    maxResponseBytes: settings.maxResponseBytes,
    ...(lookup ? { lookup } : {}),
  });
  const attempt = createDeliveryAttempt({
    store,
    clock,
    logger,
    secretBox,
    // Signatures carry the wall-clock time receivers check against, never a simulated service clock.
    sender: sender ?? createNotificationSender({ http, telegramApiBase: settings.telegramApiBase }),
    settings,
  });
  const dispatcher = createNotificationDispatcher({ store, clock, logger, events, settings });
  const loop = createDeliveryLoop({ store, clock, logger, dispatcher, attempt, settings });
  const service = createNotificationService({ store, clock, secretBox, settings, checkUrl: (url) => http.checkUrl(url), attempt, channelLimit });
  return { service, settings, loop };
}

export type Notifications = ReturnType<typeof createNotifications>;
