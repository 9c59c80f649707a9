import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import {
  generateOpenApi,
  parseInput,
  StratboxError,
  toErrorResponse,
  type Authenticator,
  type RouteDef,
  type RouteKey,
  type Stratbox,
} from '@stratbox/core';
import { jsonBody, rawBody } from './body-parsers.js';
import { orderedRoutes } from './route-order.js';

export interface StratboxRouterOptions {
  /** Who is calling; default: the Stratbox instance's authenticator (API keys). */
  authenticate?: Authenticator;
  /** Largest accepted JSON body (default `2mb`: room for a 500 KB source, escaped). */
  bodyLimit?: number | string;
  /** Serve the OpenAPI 3.1 document at `/api/openapi.json` (default true). */
  openapi?: boolean;
}

/** `res.locals` fields the router sets, for request loggers. */
export interface StratboxLocals {
  userId?: string;
  routeKey?: RouteKey;
  errorCode?: string;
}

/**
 * An Express 5 router serving every route of the Stratbox contract under `/api`. Mount it at
 * the root of any app: `app.use(createStratboxRouter(stratbox))`. For each request it
 * authenticates, parses and validates params, query and body against the contract, calls the
 * core handler and maps errors to the documented status and body.
 */
export function createStratboxRouter(stratbox: Stratbox, options: StratboxRouterOptions = {}): Router {
  const router = express.Router();
  const authenticate = options.authenticate ?? stratbox.authenticate;
  const limit = options.bodyLimit ?? '2mb';
  const json = jsonBody(limit);
  const raw = rawBody(limit);

  if (options.openapi !== false) {
    const document = generateOpenApi();
    router.get('/api/openapi.json', (_req, res) => {
      res.json(document);
    });
  }

  for (const [key, route] of orderedRoutes()) {
    const parseBody = route.rawBody ? raw : route.body ? json : null;
    const needsUser = route.auth !== 'webhook';
    const run = (req: Request, res: Response, next: NextFunction) => {
      handle(stratbox, key, route, req, res).catch(next);
    };
    const withBody = (req: Request, res: Response, next: NextFunction) => {
      if (!parseBody) return run(req, res, next);
      parseBody(req, res, (error?: unknown) => (error ? next(error) : run(req, res, next)));
    };
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    // One handler per route: authenticate, then read the body, then validate and call core.
    router[method](route.path, (req, res, next) => {
      res.locals.routeKey = key;
      if (!needsUser) return withBody(req, res, next);
      authenticate({ headers: req.headers }).then((caller) => {
        if (!caller) return next(new StratboxError('UNAUTHENTICATED', 'Missing or invalid API key; send Authorization: Bearer <api key>'));
        res.locals.userId = caller.userId;
        withBody(req, res, next);
      }, next);
    });
  }

  router.all('/api/{*rest}', (req, _res, next) => {
    next(new StratboxError('NOT_FOUND', `No route ${req.method} ${req.path}`));
  });

  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const { status, body } = toErrorResponse(error instanceof URIError ? malformedPath() : error);
    res.locals.errorCode = body.error.code;
    if (status >= 500 && body.error.code === 'INTERNAL') {
      stratbox.logger.error('Unhandled error in request', {
        route: res.locals.routeKey,
        error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
      });
    }
    if (error instanceof StratboxError && error.code === 'RATE_LIMITED') {
      const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      res.setHeader('Retry-After', String(retryAfter ?? 1));
    }
    res.status(status).json(body);
  });

  return router;
}

async function handle(stratbox: Stratbox, key: RouteKey, route: RouteDef, req: Request, res: Response): Promise<void> {
  const params = route.params ? parseInput(route.params, { ...req.params }, 'params') : {};
  const query = route.query ? parseInput(route.query, { ...(req.query as object) }, 'query') : rejectQuery(req);
  const body = route.rawBody ? undefined : route.body ? parseInput(route.body, req.body, 'body') : undefined;
  const handler = stratbox.api[key] as (ctx: unknown) => Promise<unknown>;
  const result = await handler({
    userId: (res.locals.userId as string | undefined) ?? '',
    params,
    query,
    body,
    headers: req.headers,
    ...(route.rawBody && Buffer.isBuffer(req.body) ? { rawBody: new Uint8Array(req.body) } : {}),
  });
  if (route.response === null) {
    res.status(route.successStatus).end();
    return;
  }
  // Written directly: API responses are not cached, so Express's ETag hashing of every body is skipped.
  const payload = JSON.stringify(result);
  res.status(route.successStatus);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  res.end(payload);
}

/**
 * Express could not percent-decode a path parameter (`/api/strategies/%`): it passes on a
 * URIError (status 400), which is the caller's mistake, not a 500.
 */
function malformedPath(): StratboxError {
  return new StratboxError('VALIDATION_FAILED', 'Malformed percent-encoding in the URL path', [
    { path: 'params', message: 'Not valid percent-encoded UTF-8' },
  ]);
}

/** Routes without a query schema take no query parameters: any is a typo, so it is refused. */
function rejectQuery(req: Request): Record<string, never> {
  const names = Object.keys(req.query as object);
  if (names.length > 0) {
    throw new StratboxError('VALIDATION_FAILED', `Unknown query parameter${names.length > 1 ? 's' : ''}: ${names.join(', ')}`, [
      { path: 'query', message: `Unknown fields: ${names.join(', ')}` },
    ]);
  }
  return {};
}
