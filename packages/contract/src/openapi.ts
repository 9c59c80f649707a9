import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './error-codes.js';
import { ErrorBody } from './common.js';
import type { RouteDef } from './route.js';
import { routes } from './routes.js';

type JsonSchema = Record<string, unknown>;

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function objectProperties(schema: z.ZodType | undefined): Array<[string, JsonSchema, boolean]> {
  if (!schema) return [];
  const json = toSchema(schema, 'input');
  const props = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => [name, s, required.has(name)]);
}

const COMMON_ERRORS: ErrorCode[] = ['VALIDATION_FAILED', 'UNAUTHENTICATED', 'RATE_LIMITED', 'INTERNAL'];

/** Response headers of every counted request (API.md: rate limits), described once under `components.headers`. */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { description: 'Requests allowed per window to this caller (the user; the client address without valid credentials)', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window ends and the whole allowance is back', schema: { type: 'integer' } },
};
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying (429 RATE_LIMITED)', schema: { type: 'integer' } } };
const headerRefs = (names: string[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const COUNTED = headerRefs(Object.keys(RATE_LIMIT_HEADERS));

function operation(key: string, route: RouteDef) {
  const parameters = [
    ...objectProperties(route.params).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
    ...objectProperties(route.query).map(([name, schema, required]) => ({
      name, in: 'query', required, schema, ...(schema.description ? { description: schema.description } : {}),
    })),
  ];
  const responses: Record<string, unknown> = {
    [route.successStatus]: route.response
      ? { description: 'Success', headers: COUNTED, content: { 'application/json': { schema: toSchema(route.response, 'output') } } }
      : { description: 'No content', headers: COUNTED },
  };
  const codes = new Set<ErrorCode>([...COMMON_ERRORS, ...route.errors]);
  if (route.auth === 'webhook') codes.delete('UNAUTHENTICATED');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    responses[status] = {
      description: list.join(', '),
      headers: status === ERROR_STATUS.RATE_LIMITED ? { ...COUNTED, ...headerRefs(Object.keys(RETRY_AFTER)) } : COUNTED,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    };
  }
  const body = route.rawBody
    ? { required: true, content: { 'application/json': { schema: { type: 'object', description: 'Provider event, signed' } } } }
    : route.body
      ? { required: !route.body.safeParse(undefined).success, content: { 'application/json': { schema: toSchema(route.body, 'input') } } }
      : undefined;
  return {
    operationId: key,
    summary: route.summary,
    tags: [key.split('.')[0]],
    ...(route.description ? { description: route.description } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
    security: route.auth === 'webhook' ? [] : [{ bearer: [] }],
  };
}

/** The OpenAPI 3.1 document of the whole contract, generated from the route table. */
export function generateOpenApi(options: { title?: string; version?: string; serverUrl?: string } = {}) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [key, route] of Object.entries(routes) as Array<[string, RouteDef]>) {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(key, route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'Stratbox API',
      version: options.version ?? '0.1.0',
      description:
        'Strategy storage with versions, sandboxed backtests, live deployments, a marketplace and billing. ' +
        'Authenticate with `Authorization: Bearer <api key>`. Lists are newest first and paginated with `limit` ' +
        '(default 50, at most 200) and `cursor` (the `nextCursor` of the previous page). Unknown body and query ' +
        'fields are rejected with 400. Errors answer `{ error: { code, message, details? } }`. Another user\'s ' +
        'record answers 404 exactly as a missing one. Real-time channels are on the WebSocket endpoint `/ws`. ' +
        'Rate limits: requests are counted per user (every API key of a user shares one allowance) and, without ' +
        'valid credentials (and for the billing webhook), per client address, in fixed windows (by default 1,200 ' +
        'a minute per user and 300 per address); every response under `/api` carries `RateLimit-Limit`, ' +
        '`RateLimit-Remaining` and `RateLimit-Reset` (seconds), and a request over the limit answers 429 ' +
        '`RATE_LIMITED` with `Retry-After` (seconds) and `details: { retryAfterSeconds, limit }`. A path that is ' +
        'not valid percent-encoding answers 400 `VALIDATION_FAILED`; a request line and headers over 16 KB ' +
        '(e.g. a long query string) answer 431 with the error body, code `VALIDATION_FAILED`.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths,
    components: {
      schemas: { ErrorBody: toSchema(ErrorBody, 'output') },
      headers: { ...RATE_LIMIT_HEADERS, ...RETRY_AFTER },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key' } },
    },
  };
}
