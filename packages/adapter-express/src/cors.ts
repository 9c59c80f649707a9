import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { NEXT_CURSOR_HEADER, StratboxError } from '@stratbox/core';

export interface StratboxCorsOptions {
  /**
   * Origins allowed to call the API from a browser (`https://app.example.com`, scheme, host and
   * port exactly as the browser sends them in `Origin`), or `'*'` for any origin (then without
   * credentials). Default: none.
   */
  origins?: string[] | '*';
  /** Let browsers send cookies or HTTP auth and read the answer (`Access-Control-Allow-Credentials`). Default false. */
  credentials?: boolean;
  /** How long a browser may cache a preflight answer, in seconds (default 600). */
  maxAgeSeconds?: number;
}

/** Response headers the page may read. */
const EXPOSED_HEADERS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', NEXT_CURSOR_HEADER];

/**
 * CORS for the contract's paths, on the `cors` package. A preflight (`OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`) from an allowed origin answers 204 with the
 * `Access-Control-*` headers (the request headers it asked for are allowed); from any other origin it is refused with 403 `FORBIDDEN` and no
 * `Access-Control-*` header. Other requests from an allowed origin get
 * `Access-Control-Allow-Origin` (and `-Credentials`); from other origins they get none, so the
 * browser keeps the answer from the page.
 */
export function createCors(options: StratboxCorsOptions): RequestHandler {
  const origins = options.origins ?? [];
  const credentials = options.credentials ?? false;
  if (origins === '*' && credentials) {
    throw new TypeError("cors: credentials cannot be allowed for every origin ('*'); list the origins instead");
  }
  const allowed = (origin: string) => origins === '*' || origins.includes(origin);
  const handle = cors({
    origin: origins === '*' ? '*' : (origin, callback) => callback(null, origin !== undefined && allowed(origin)),
    credentials,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // no allowedHeaders: those the preflight asks for are allowed (Authorization, Content-Type, a
    // tracing header the page's monitoring adds...), for allowed origins only
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: options.maxAgeSeconds ?? 600,
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined;
    if (preflight && !allowed(origin)) {
      next(new StratboxError('FORBIDDEN', `Cross-origin requests from ${origin} are not allowed`));
      return;
    }
    handle(req, res, next);
  };
}
