import express, { type Express } from 'express';
import type { RateLimiter, Stratbox } from '@stratbox/core';
import { createHealthHandlers, createRequestId, createStratboxRouter, stratboxNotFound } from '@stratbox/adapter-express';
import { DEFAULT_DASHBOARD_DIR, serveDashboard } from './dashboard.js';
import { requestLogger } from './request-logger.js';

export interface AppOptions {
  logRequests?: boolean;
  /** The router's rate limiter (default: in memory, default limits; `false`: none). */
  rateLimiter?: RateLimiter | false;
  /** Express's `trust proxy`: which proxies' `X-Forwarded-For` gives the client address (default: none). */
  trustProxy?: boolean | number | string;
  /**
   * The built dashboard to serve at `/` (default: `examples/dashboard/dist`, when it was built);
   * `false`: none. A directory without `index.html` serves nothing.
   */
  dashboardDir?: string | false;
}

/**
 * The example service's Express app: request id and request log, liveness (`/healthz`) and
 * readiness (`/readyz`), the Stratbox router, the documented 404 for other `/api` paths, then
 * the dashboard at `/` when it is built.
 */
export function createApp(stratbox: Stratbox, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  // every response, the health checks' too, carries x-request-id; the router reuses the id
  app.use(createRequestId());
  if (options.logRequests !== false) app.use(requestLogger(stratbox.logger));
  const health = createHealthHandlers(stratbox);
  app.get('/healthz', health.liveness);
  app.get('/readyz', health.readiness);
  app.use(createStratboxRouter(stratbox, options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }));
  app.use('/api', stratboxNotFound);
  const dashboard = options.dashboardDir === false ? null : serveDashboard(options.dashboardDir ?? DEFAULT_DASHBOARD_DIR);
  if (dashboard) app.use(dashboard);
  return app;
}
