export { recordNotificationEvent, eventIdFor, type NewNotificationEvent } from './record-event.js';
export {
  resolveNotificationSettings,
  splitHostList,
  DEFAULT_DISCORD_WEBHOOK_BASE,
  DEFAULT_TELEGRAM_API_BASE,
  type NotificationSettings,
  type NotificationsConfig,
} from './notification-settings.js';
export { createNotificationService, type NotificationService } from './notification-service.js';
export { createNotifications, type Notifications } from './create-notifications.js';
export {
  createGuardedHttpClient,
  GuardedHttpError,
  isGuardedHttpError,
  type GuardedHttpClient,
  type GuardedHttpClientOptions,
  type GuardedHttpErrorCode,
  type GuardedPostOptions,
  type GuardedResponse,
  type HostResolver,
  type ResolvedAddress,
} from './guarded-http.js';
export { parseAllowHosts, AllowHostsError, type AllowHosts } from './allow-hosts.js';
export { isPublicAddress } from './public-address.js';
export { createNotificationSender, type NotificationSenderOptions } from './create-notification-sender.js';
export { createWebhookSender, NOTIFICATION_USER_AGENT, type WebhookSenderOptions } from './webhook-sender.js';
export { createTelegramSender, TELEGRAM_API_BASE, type TelegramSenderOptions } from './telegram-sender.js';
export { createDiscordSender, isDiscordWebhookUrl, DISCORD_WEBHOOK_BASE, type DiscordSenderOptions } from './discord-sender.js';
export { renderMessage, DISCORD_MAX_CHARS, TELEGRAM_MAX_CHARS } from './render-message.js';
export { signWebhook, newSigningSecret } from './webhook-signature.js';
