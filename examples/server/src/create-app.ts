import express, { type Express } from 'express';
import type { RateLimiter, Stratbox } from '@stratbox/core';
import { createStratboxRouter } from '@stratbox/adapter-express';
import { requestLogger } from './request-logger.js';

export interface AppOptions {
  logRequests?: boolean;
  /** The router's rate limiter (default: in memory, default limits; `false`: none). */
  rateLimiter?: RateLimiter | false;
  /** Express's `trust proxy`: which proxies' `X-Forwarded-For` gives the client address (default: none). */
  trustProxy?: boolean | number | string;
}

/** The example service's Express app: request log, then the Stratbox router. */
export function createApp(stratbox: Stratbox, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  if (options.logRequests !== false) app.use(requestLogger(stratbox.logger));
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.use(createStratboxRouter(stratbox, options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }));
  return app;
}
