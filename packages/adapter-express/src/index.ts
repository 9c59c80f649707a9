/** `@stratbox/adapter-express`: the Stratbox HTTP API as an Express 5 router. */
export { createStratboxRouter, type StratboxRouterOptions, type StratboxLocals } from './create-stratbox-router.js';
export { handleClientError } from './client-error.js';
export { createHealthHandlers, type HealthHandlers, type HealthOptions } from './health.js';
export { createRequestId, type RequestIdOptions } from './request-id.js';
export type { StratboxCorsOptions } from './cors.js';
export { WEBHOOK_BODY_CONSUMED } from './body-parsers.js';
export { stratboxNotFound } from './not-found.js';
