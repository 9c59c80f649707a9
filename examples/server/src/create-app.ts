import express, { type Express } from 'express';
import type { Stratbox } from '@stratbox/core';
import { createStratboxRouter } from '@stratbox/adapter-express';
import { requestLogger } from './request-logger.js';

/** The example service's Express app: request log, then the Stratbox router. */
export function createApp(stratbox: Stratbox, options: { logRequests?: boolean } = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  if (options.logRequests !== false) app.use(requestLogger(stratbox.logger));
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  app.use(createStratboxRouter(stratbox));
  return app;
}
