import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { StratboxError } from '@stratbox/core';

/** body-parser error types and the answer each one gets. */
function mapBodyError(error: { type?: string; message?: string; limit?: number }): StratboxError {
  switch (error.type) {
    case 'entity.too.large':
      return new StratboxError('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${error.limit} bytes`);
    case 'entity.parse.failed':
      return new StratboxError('VALIDATION_FAILED', 'Malformed JSON in request body', [{ path: 'body', message: 'Not valid JSON' }]);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new StratboxError('VALIDATION_FAILED', 'Unsupported request body encoding; send UTF-8 JSON');
    default:
      return new StratboxError('VALIDATION_FAILED', 'Could not read the request body');
  }
}

function wrap(parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    parser(req, res, (error?: unknown) => {
      if (error) next(mapBodyError(error as { type?: string }));
      else next();
    });
  };
}

/**
 * Parses every request body as JSON, whatever its content type (objects only), with a size
 * limit; malformed JSON is a 400 and an oversize body a 413, both as StratboxErrors.
 */
export function jsonBody(limit: number | string): RequestHandler {
  return wrap(express.json({ limit, strict: true, type: () => true }));
}

/** Keeps the body as raw bytes in `req.body` (a Buffer), for signed webhooks. */
export function rawBody(limit: number | string): RequestHandler {
  return wrap(express.raw({ limit, type: () => true }));
}
