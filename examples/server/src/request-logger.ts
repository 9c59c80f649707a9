import type { RequestHandler } from 'express';
import type { Logger } from '@stratbox/core';

/**
 * Logs each request as one JSON line when its response is finished, with its `requestId` (set
 * by `createRequestId` or the router). Never logs headers or bodies.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info('request', {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        durationMs: Math.round(durationMs * 100) / 100,
        ...(res.locals.requestId ? { requestId: res.locals.requestId } : {}),
        ...(res.locals.userId ? { userId: res.locals.userId } : {}),
        ...(res.locals.errorCode ? { errorCode: res.locals.errorCode } : {}),
      });
    });
    next();
  };
}
