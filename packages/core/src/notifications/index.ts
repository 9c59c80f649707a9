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
export { createGuardedHttpClient, type GuardedHttpClient, type GuardedHttpClientOptions, type HostResolver } from './guarded-http.js';
export { signWebhook, newSigningSecret } from './webhook-signature.js';
