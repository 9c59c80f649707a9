/**
 * `@stratbox/contract`: the wire contract of Stratbox. Imports nothing but zod, so a browser
 * bundle can use it; `@stratbox/core` re-exports it (also as `@stratbox/core/contract`).
 */
export * from './error-codes.js';
export * from './ids.js';
export * from './common.js';
export * from './strategies.js';
export * from './backtests.js';
export * from './optimizations.js';
export * from './deployments.js';
export * from './credentials.js';
export * from './marketplace.js';
export * from './billing.js';
export * from './market-data.js';
export * from './notifications.js';
export * from './listing-records.js';
export * from './drift.js';
export * from './ws.js';
export * from './route.js';
export * from './routes.js';
export * from './openapi.js';
