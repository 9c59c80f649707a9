import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@stratbox/core';
import express, { type Router } from 'express';

/** Where `pnpm --filter @stratbox/dashboard build` writes the dashboard: `examples/dashboard/dist`. */
export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));

/** Paths that are never the dashboard's, even when nothing else answered them. */
const NOT_PAGES = /^\/(?:api|ws|assets)(?:\/|$)|^\/(?:healthz|readyz)$/;

/** What the dashboard's page may load: its own files, any service it is pointed at (fetch and WebSocket), CodeMirror's inline styles. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self' http: https: ws: wss:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/**
 * Serves a built dashboard (a Vite `dist` directory) at `/`: its hashed `/assets/*` files cached
 * for a year, and its `index.html` (never cached) for every other GET or HEAD path that is not
 * `/api`, `/ws`, `/assets` or a health check, so the page's own addresses (`/backtests/bt_...`)
 * open it. Null when `dir` has no `index.html`: the service then runs without a dashboard.
 */
export function serveDashboard(dir: string): Router | null {
  const root = resolve(dir);
  const index = join(root, 'index.html');
  if (!existsSync(index)) return null;
  const router = express.Router();
  const headers = (res: express.Response) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('Referrer-Policy', 'no-referrer');
  };
  router.use(
    '/assets',
    express.static(join(root, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      fallthrough: true,
      setHeaders: (res) => headers(res),
    }),
  );
  router.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_PAGES.test(req.path)) {
      next();
      return;
    }
    headers(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index, (error) => {
      if (error && !res.headersSent) next(error);
    });
  });
  return router;
}

/** Says at start where the dashboard is, or how to build it when it is missing. */
export function logDashboard(logger: Logger, port: number, dir = DEFAULT_DASHBOARD_DIR): void {
  if (existsSync(join(dir, 'index.html'))) logger.info('dashboard', { url: `http://localhost:${port}/`, dir });
  else logger.warn('dashboard not built: run `npx -y pnpm@10 --filter @stratbox/dashboard build` (pnpm start does), or set STRATBOX_DASHBOARD_DIR', { dir });
}
