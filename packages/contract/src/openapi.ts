import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './error-codes.js';
import { ErrorBody } from './common.js';
import type { RouteDef } from './route.js';
import { routes } from './routes.js';
import * as common from './common.js';
import * as strategies from './strategies.js';
import * as backtests from './backtests.js';
import * as deployments from './deployments.js';
import * as credentials from './credentials.js';
import * as marketplace from './marketplace.js';
import * as billing from './billing.js';
import * as marketData from './market-data.js';

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

/** Response headers of every counted request (docs/api-contract.md: rate limits), described once under `components.headers`. */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': {
    description: 'Requests allowed per window to this caller (the user; the client address without valid credentials)',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window ends and the whole allowance is back', schema: { type: 'integer' } },
};
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying (429 RATE_LIMITED)', schema: { type: 'integer' } } };
/** On every response (docs/api-contract.md: request ids). */
const REQUEST_ID = {
  'X-Request-Id': {
    description:
      "The request's id: the client's own `X-Request-Id` if it is 1 to 128 characters of `A-Za-z0-9._-`, else a generated one; the same id is in the server's log lines of the request",
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
  },
};
const headerRefs = (names: string[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const COUNTED = headerRefs([...Object.keys(RATE_LIMIT_HEADERS), ...Object.keys(REQUEST_ID)]);

/** The contract's exported record, list, body and enum schemas, named by their export names in `components.schemas`. */
const NAMED_KINDS = new Set(['object', 'union', 'enum', 'record', 'intersection']);
function namedSchemas(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  for (const module of [common, strategies, backtests, deployments, credentials, marketplace, billing, marketData]) {
    for (const [name, value] of Object.entries(module)) {
      if (value instanceof z.ZodType && NAMED_KINDS.has(value._zod.def.type) && !names.has(value)) names.set(value, name);
    }
  }
  return names;
}

/**
 * Named component schemas: each named schema is converted once per direction (request bodies
 * are read as `input`, responses as `output`), nested named schemas become `$ref`s. A schema
 * whose input and output shapes differ (defaults, transforms), or that holds one that does, and
 * that responses use too, is written twice: `Name` (output) and `NameInput`. Only schemas the
 * document uses are kept.
 */
function createComponents(routeList: RouteDef[]) {
  const names = namedSchemas();
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of names) registry.add(schema, { id });
  const INPUT = '__input__';
  const convert = (io: 'input' | 'output') =>
    (
      z.toJSONSchema(registry, {
        target: 'draft-2020-12',
        io,
        unrepresentable: 'any',
        uri: (id) => `#/components/schemas/${io === 'input' ? INPUT : ''}${id}`,
      }) as { schemas: Record<string, JsonSchema> }
    ).schemas;
  const strip = (schema: JsonSchema) => {
    const { $id: _id, $schema: _schema, ...rest } = schema;
    return JSON.stringify(rest);
  };
  const output = Object.fromEntries(Object.entries(convert('output')).map(([id, schema]) => [id, strip(schema)]));
  const input = Object.fromEntries(Object.entries(convert('input')).map(([id, schema]) => [id, strip(schema)]));
  const refsOf = (json: string) => [...json.matchAll(/"#\/components\/schemas\/(?:__input__)?([A-Za-z0-9_]+)"/g)].map((m) => m[1]!);
  // an input shape differs from its output shape by itself or through a schema it holds
  const differs = new Set(Object.keys(input).filter((id) => input[id]!.replaceAll(INPUT, '') !== output[id]));
  for (let grew = true; grew; ) {
    grew = false;
    for (const id of Object.keys(input)) {
      if (!differs.has(id) && refsOf(input[id]!).some((ref) => differs.has(ref))) {
        differs.add(id);
        grew = true;
      }
    }
  }
  // responses' schemas and those they hold keep the plain name; an input shape takes it when free
  const outputUsed = new Set<string>();
  const reach = (id: string) => {
    if (outputUsed.has(id)) return;
    outputUsed.add(id);
    for (const ref of refsOf(output[id]!)) reach(ref);
  };
  for (const schema of [ErrorBody, ...routeList.map((route) => route.response)]) {
    const id = schema && names.get(schema);
    if (id) reach(id);
  }
  const inputName = (id: string) => (differs.has(id) && outputUsed.has(id) ? `${id}Input` : id);
  const resolveInput = (json: string) =>
    json.replace(/#\/components\/schemas\/__input__([A-Za-z0-9_]+)/g, (_m, id: string) => `#/components/schemas/${inputName(id)}`);
  const used = new Map<string, string>();
  const use = (name: string, json: string) => {
    if (used.has(name)) return;
    used.set(name, json);
    for (const ref of refsOf(json)) use(ref, output[ref]!);
  };
  const useInput = (id: string) => {
    const name = inputName(id);
    if (used.has(name)) return;
    const json = resolveInput(input[id]!);
    used.set(name, json);
    for (const ref of refsOf(input[id]!)) useInput(ref);
  };
  return {
    /** A `$ref` to the component of a named schema, or the schema itself inline. */
    ref(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
      const id = names.get(schema);
      if (!id) return toSchema(schema, io);
      if (io === 'input') useInput(id);
      else use(id, output[id]!);
      return { $ref: `#/components/schemas/${io === 'input' ? inputName(id) : id}` };
    },
    /** The components used so far, by name. */
    schemas(): Record<string, JsonSchema> {
      return Object.fromEntries([...used].sort(([a], [b]) => a.localeCompare(b)).map(([name, json]) => [name, JSON.parse(json) as JsonSchema]));
    },
  };
}

/** A route's own success headers (string values). */
function routeHeaders(route: RouteDef) {
  return Object.fromEntries(Object.entries(route.headers ?? {}).map(([name, { description }]) => [name, { description, schema: { type: 'string' } }]));
}

function operation(key: string, route: RouteDef, named: ReturnType<typeof createComponents>) {
  const parameters = [
    ...objectProperties(route.params).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
    ...objectProperties(route.query).map(([name, schema, required]) => ({
      name,
      in: 'query',
      required,
      schema,
      ...(schema.description ? { description: schema.description } : {}),
    })),
  ];
  const responses: Record<string, unknown> = {
    [route.successStatus]: route.response
      ? {
          description: 'Success',
          headers: { ...COUNTED, ...routeHeaders(route) },
          content: { 'application/json': { schema: named.ref(route.response, 'output') } },
        }
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
      ? { required: !route.body.safeParse(undefined).success, content: { 'application/json': { schema: named.ref(route.body, 'input') } } }
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
  const named = createComponents(Object.values(routes));
  named.ref(ErrorBody, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [key, route] of Object.entries(routes) as Array<[string, RouteDef]>) {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(key, route, named);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'Stratbox API',
      version: options.version ?? '0.1.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Strategy storage with versions, sandboxed backtests, live deployments, a marketplace and billing. ' +
        'Authenticate with `Authorization: Bearer <api key>`. Lists are newest first and paginated with `limit` ' +
        '(default 50, at most 200) and `cursor` (the `nextCursor` of the previous page). Unknown body and query ' +
        "fields are rejected with 400. Errors answer `{ error: { code, message, details? } }`. Another user's " +
        'record answers 404 exactly as a missing one. Real-time channels are on the WebSocket endpoint `/ws`. ' +
        'Rate limits: requests are counted per user (every API key of a user shares one allowance) and, without ' +
        'valid credentials (and for the billing webhook), per client address, in fixed windows (by default 1,200 ' +
        'a minute per user and 300 per address); every response under `/api` carries `RateLimit-Limit`, ' +
        '`RateLimit-Remaining` and `RateLimit-Reset` (seconds), and a request over the limit answers 429 ' +
        '`RATE_LIMITED` with `Retry-After` (seconds) and `details: { retryAfterSeconds, limit }`. A path that is ' +
        'not valid percent-encoding answers 400 `VALIDATION_FAILED`; a request line and headers over 16 KB ' +
        '(e.g. a long query string) answer 431 with the error body, code `VALIDATION_FAILED`. A path of this ' +
        'document called with a method it does not have answers 404 `NOT_FOUND` with an `Allow` header. Every ' +
        'response carries `X-Request-Id`. CORS is off unless the server allows origins; a preflight from another ' +
        'origin answers 403 `FORBIDDEN`.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths,
    components: {
      schemas: named.schemas(),
      headers: { ...RATE_LIMIT_HEADERS, ...RETRY_AFTER, ...REQUEST_ID },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key' } },
    },
  };
}
