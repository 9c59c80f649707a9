/** `@stratbox/adapter-express`: the Stratbox HTTP API as an Express 5 router. */
export { createStratboxRouter, type StratboxRouterOptions, type StratboxLocals } from './create-stratbox-router.js';
export { handleClientError } from './client-error.js';
