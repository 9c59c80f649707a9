import type { Request, Response } from 'express';
import { StratboxError } from '@stratbox/core';

/**
 * Answers 404 `NOT_FOUND` with the documented error body, for a host that wants that answer for
 * every other path under `/api` too: mount it after the router and the host's own `/api` routes,
 * `app.use('/api', stratboxNotFound)`. The router itself leaves paths outside its contract to
 * the host.
 */
export function stratboxNotFound(req: Request, res: Response): void {
  const error = new StratboxError('NOT_FOUND', `No route ${req.method} ${req.originalUrl.split('?')[0]}`);
  res.locals.errorCode = error.code;
  res.status(error.status).json(error.toBody());
}
