import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** A request id a client may choose: 1 to 128 characters of `A-Z a-z 0-9 . _ -`. */
const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export interface RequestIdOptions {
  /** Header read from the request and written on the response (default `x-request-id`). */
  header?: string;
  /** Makes an id when the request has no sane one (default `crypto.randomUUID()`). */
  generate?: () => string;
}

/**
 * Gives the request an id, kept in `res.locals.requestId` and echoed in the response header
 * (`x-request-id` by default): the client's own if it sent a sane one (1 to 128 characters of
 * `A-Z a-z 0-9 . _ -`), else a generated one. An id an earlier middleware already set in
 * `res.locals.requestId` is kept, so the host may run this app-wide (before its request
 * logger) and the router reuses that id.
 */
export function createRequestId(options: RequestIdOptions = {}): RequestHandler {
  const assign = requestIdAssigner(options);
  return (req: Request, res: Response, next: NextFunction) => {
    assign(req, res);
    next();
  };
}

/** The function behind `createRequestId`: assigns the id (once) and sets the header. */
export function requestIdAssigner(options: RequestIdOptions = {}): (req: Request, res: Response) => string {
  const header = (options.header ?? 'x-request-id').toLowerCase();
  const generate = options.generate ?? randomUUID;
  return (req, res) => {
    const existing: unknown = res.locals.requestId;
    const sent = req.headers[header];
    const id = typeof existing === 'string' ? existing : typeof sent === 'string' && SANE_ID.test(sent) ? sent : generate();
    res.locals.requestId = id;
    if (!res.headersSent) res.setHeader(header, id);
    return id;
  };
}
