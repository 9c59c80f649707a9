import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import {
  createMemoryRateLimiter,
  generateOpenApi,
  isStratboxError,
  parseInput,
  StratboxError,
  toErrorResponse,
  type Authenticator,
  type RateLimiter,
  type RouteDef,
  type RouteKey,
  type Stratbox,
} from '@stratbox/core';
import { jsonBody, rawBody } from './body-parsers.js';
import { createCors, type StratboxCorsOptions } from './cors.js';
import { requestIdAssigner, type RequestIdOptions } from './request-id.js';
import { contractPaths, orderedRoutes } from './route-order.js';

export interface StratboxRouterOptions {
  /**
   * Who is calling; default: the Stratbox instance's authenticator (API keys). Receives Express's
   * `Request`, so it may read what the host's own middleware set (`req.user` of a session or
   * Passport) as well as `req.headers`; an `Authenticator` that reads only headers works too.
   */
  authenticate?: Authenticator<Request>;
  /**
   * Largest accepted JSON body (default `2mb`: room for a 500 KB source, escaped). Applies only
   * when the router reads the body itself: mounted after a host body parser, that parser's
   * limit applies (express.json's default is 100 KB).
   */
  bodyLimit?: number | string;
  /**
   * Serve the OpenAPI 3.1 document at `/api/openapi.json` (default true). Its `servers` entry is
   * `basePath`, else the path the router is mounted under (`req.baseUrl`), else `/`.
   */
  openapi?: boolean;
  /** Where the router is mounted as seen by clients, e.g. `/stratbox` behind a proxy that strips nothing (default: `req.baseUrl`). */
  basePath?: string;
  /** CORS for the contract's paths: off by default (no `Access-Control-*` header, preflights get 404). */
  cors?: StratboxCorsOptions;
  /**
   * The request id (default on, header `x-request-id`): the client's if sane, else generated;
   * echoed on every response of the contract's paths, in `res.locals.requestId` for the host's
   * logger and in the router's own log lines. `false`: none (an id already in
   * `res.locals.requestId` is still logged).
   */
  requestId?: RequestIdOptions | false;
  /**
   * Counts every request under `/api`: per user once authenticated, per client address
   * (`req.ip`: set Express's `trust proxy` behind a proxy) for requests without valid
   * credentials, the billing webhook and unknown routes. Over the limit: 429 `RATE_LIMITED` with
   * `Retry-After`; every counted response carries `RateLimit-Limit`, `RateLimit-Remaining` and
   * `RateLimit-Reset` (seconds). Default: `createMemoryRateLimiter()` (per process, with
   * `DEFAULT_RATE_LIMITS`); pass a shared one (`createRedisRateLimiter` from
   * `@stratbox/queue-bullmq`) for several nodes, or `false` for none. The router does not close it.
   */
  rateLimiter?: RateLimiter | false;
}

/** `res.locals` fields the router sets, for request loggers. */
export interface StratboxLocals {
  userId?: string;
  routeKey?: RouteKey;
  errorCode?: string;
  requestId?: string;
}

/**
 * An Express 5 router serving every route of the Stratbox contract under `/api`. Mount it at
 * the root of any app, before the host's body parsers:
 * `app.use(createStratboxRouter(stratbox)); app.use(express.json())`. For each request it
 * authenticates, parses and validates params, query and body against the contract, calls the
 * core handler and maps errors to the documented status and body.
 *
 * It answers only the contract's paths: any other path goes on to the host's later routes. A
 * contract path called with a method it does not have answers 404 `NOT_FOUND` with an `Allow`
 * header listing the methods it has.
 */
export function createStratboxRouter(stratbox: Stratbox, options: StratboxRouterOptions = {}): Router {
  const router = express.Router();
  const authenticate: Authenticator<Request> = options.authenticate ?? stratbox.authenticate;
  const limit = options.bodyLimit ?? '2mb';
  const json = jsonBody(limit);
  const raw = rawBody(limit);
  const limiter = options.rateLimiter === false ? null : (options.rateLimiter ?? createMemoryRateLimiter());
  /** Counts the request against its caller and sets the RateLimit headers; rejects with RATE_LIMITED over the limit. */
  const countRequest = (req: Request, res: Response, userId?: string): Promise<void> =>
    limiter ? applyRateLimit(limiter, stratbox, req, res, userId) : Promise.resolve();
  const assignRequestId = options.requestId === false ? null : requestIdAssigner(options.requestId);
  const paths = contractPaths(options.openapi !== false);

  // Before any route of the contract: the request id, then CORS (a preflight ends here).
  if (assignRequestId) {
    router.all(
      paths.map((p) => p.path),
      (req, res, next) => {
        assignRequestId(req, res);
        next();
      },
    );
  }
  if (options.cors)
    router.all(
      paths.map((p) => p.path),
      createCors(options.cors),
    );

  if (options.openapi !== false) {
    const documents = new Map<string, ReturnType<typeof generateOpenApi>>();
    router.get('/api/openapi.json', (req, res, next) => {
      const serverUrl = options.basePath ?? (req.baseUrl || '/');
      let document = documents.get(serverUrl);
      if (!document) documents.set(serverUrl, (document = generateOpenApi({ serverUrl })));
      const ready = document;
      countRequest(req, res).then(() => res.json(ready), next);
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
    // One handler per route: authenticate, count the request against its caller (the user, else
    // the client address), then read the body, then validate and call core.
    router[method](route.path, (req, res, next) => {
      res.locals.routeKey = key;
      const caller = needsUser ? authenticate(req) : Promise.resolve(null);
      caller
        .then(async (found) => {
          if (found) res.locals.userId = found.userId;
          await countRequest(req, res, found?.userId);
          if (needsUser && !found) throw new StratboxError('UNAUTHENTICATED', 'Missing or invalid API key; send Authorization: Bearer <api key>');
          withBody(req, res, next);
        })
        .catch(next);
    });
  }

  // A contract path with a method it does not have: 404 with `Allow`. Other paths are the host's.
  for (const { path, methods } of paths) {
    const allow = methods.includes('GET') ? [...methods, 'HEAD'].join(', ') : methods.join(', ');
    router.all(path, (req, res, next) => {
      res.setHeader('Allow', allow);
      countRequest(req, res).then(() => next(new StratboxError('NOT_FOUND', `No route ${req.method} ${req.path}; this path allows ${allow}`)), next);
    });
  }

  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (assignRequestId) assignRequestId(req, res);
    const { status, body } = toErrorResponse(error instanceof URIError ? malformedPath() : error);
    res.locals.errorCode = body.error.code;
    if (status >= 500 && body.error.code === 'INTERNAL') {
      // a StratboxError INTERNAL carries its own message (a misconfiguration that names the fix)
      stratbox.logger.error(isStratboxError(error) ? error.message : 'Unhandled error in request', {
        route: res.locals.routeKey,
        requestId: res.locals.requestId,
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
    setHeader: (name: string, value: string) => res.setHeader(name, value),
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
 * Counts one request of the user (or, without one, of the client address) and sets the
 * `RateLimit-*` headers; over the limit it rejects with RATE_LIMITED, whose `retryAfterSeconds`
 * becomes `Retry-After`. A limiter that fails (its store is down) lets the request through.
 */
async function applyRateLimit(limiter: RateLimiter, stratbox: Stratbox, req: Request, res: Response, userId: string | undefined): Promise<void> {
  let decision;
  try {
    decision = userId ? await limiter.hit('user', userId) : await limiter.hit('ip', req.ip ?? req.socket.remoteAddress ?? 'unknown');
  } catch (error) {
    stratbox.logger.warn('Rate limiter failed; request let through', {
      requestId: res.locals.requestId,
      error: error instanceof Error ? error.message : String(error),
    });
    return;
  }
  const resetSeconds = Math.ceil(decision.resetMs / 1000);
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(resetSeconds));
  if (decision.allowed) return;
  const retryAfterSeconds = Math.max(1, resetSeconds);
  throw new StratboxError(
    'RATE_LIMITED',
    `Too many requests: at most ${decision.limit} per window ${userId ? 'per user' : 'per client address'}; retry in ${retryAfterSeconds} s`,
    {
      retryAfterSeconds,
      limit: decision.limit,
    },
  );
}

/**
 * Express could not percent-decode a path parameter (`/api/strategies/%`): it passes on a
 * URIError (status 400), which is the caller's mistake, not a 500.
 */
function malformedPath(): StratboxError {
  return new StratboxError('VALIDATION_FAILED', 'Malformed percent-encoding in the URL path', [{ path: 'params', message: 'Not valid percent-encoded UTF-8' }]);
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
