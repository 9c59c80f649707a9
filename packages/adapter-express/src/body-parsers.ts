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
 * True when something before the router (a host's `express.json()`, ...) has already read the
 * request's body: its bytes are gone, and `req.body` holds whatever that parser made of them.
 */
export function bodyAlreadyRead(req: Request): boolean {
  return req.readableEnded;
}

/**
 * Parses every request body as JSON, whatever its content type (objects only), with a size
 * limit; malformed JSON is a 400 and an oversize body a 413, both as StratboxErrors. A body a
 * host parser already read is left as that parser made it (`req.body`), to be validated as is;
 * that parser's limit and errors then apply.
 */
export function jsonBody(limit: number | string): RequestHandler {
  const parse = wrap(express.json({ limit, strict: true, type: () => true }));
  return (req, res, next) => (bodyAlreadyRead(req) ? next() : parse(req, res, next));
}

/** What to do: the message of the error a webhook gets when a host parser consumed its bytes. */
export const WEBHOOK_BODY_CONSUMED =
  'The billing webhook cannot verify its signature: a body parser of the host app read the request before the Stratbox router, ' +
  'so its raw bytes are gone. Mount the Stratbox router before the body parser (app.use(router) before app.use(express.json())), ' +
  "or at least its webhook path: app.post('/api/billing/webhook', router) before the parser.";

/**
 * Keeps the body as raw bytes in `req.body` (a Buffer), for signed webhooks. When a host parser
 * already read the body, the bytes are taken from `req.body` if it is still a Buffer
 * (`express.raw()`) or from `req.rawBody` (a Buffer kept by the host, e.g. with express.json's
 * `verify`); otherwise the request fails with `INTERNAL` (500: a provider retries it once the
 * host is fixed) and the message `WEBHOOK_BODY_CONSUMED`, never with a misleading bad signature.
 */
export function rawBody(limit: number | string): RequestHandler {
  const parse = wrap(express.raw({ limit, type: () => true }));
  return (req, res, next) => {
    if (!bodyAlreadyRead(req)) return parse(req, res, next);
    const kept = [req.body, (req as Request & { rawBody?: unknown }).rawBody].find((candidate) => Buffer.isBuffer(candidate));
    if (kept) {
      req.body = kept;
      return next();
    }
    next(new StratboxError('INTERNAL', WEBHOOK_BODY_CONSUMED));
  };
}
