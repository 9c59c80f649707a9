/** `@stratbox/client`: a typed client for the Stratbox API, for browsers and Node. */
export { createStratboxClient, type StratboxClient, type StratboxClientOptions, type CallOptions, type ClientRouteKey } from './create-stratbox-client.js';
export { StratboxClientError, isStratboxClientError } from './client-error.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  isWebhookVerificationError,
  type WebhookVerificationErrorCode,
  type VerifyWebhookOptions,
} from './verify-webhook.js';
export type { StratboxRealtimeMethods, StratboxPagingMethods, LogPageData } from './create-stratbox-client.js';
export * from './ws/index.js';
/** The notification event catalogue and its order of severities, for UIs that list the event types. */
export { NOTIFICATION_EVENT_CATALOGUE, NOTIFICATION_EVENT_TYPES, SEVERITY_RANK, userEventsChannel } from '@stratbox/contract';
export type * from '@stratbox/contract';
