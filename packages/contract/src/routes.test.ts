import { describe, expect, it } from 'vitest';
import { routes } from './routes.js';
import type { RouteDef } from './route.js';
import { generateOpenApi } from './openapi.js';
import { ERROR_STATUS } from './error-codes.js';

/** Every endpoint of docs/spec.md section 4, as `METHOD path`. */
const SPEC_ENDPOINTS = [
  'GET /api/strategies',
  'GET /api/strategies/:id',
  'POST /api/strategies',
  'PUT /api/strategies/:id',
  'DELETE /api/strategies/:id',
  'GET /api/deployments',
  'GET /api/deployments/:id',
  'POST /api/deployments',
  'POST /api/deployments/:id/stop',
  'POST /api/deployments/:id/restart',
  'DELETE /api/deployments/:id',
  'GET /api/deployments/:id/logs',
  'GET /api/backtests',
  'GET /api/backtests/:id',
  'POST /api/backtests',
  'POST /api/backtests/:id/cancel',
  'GET /api/marketplace',
  'GET /api/marketplace/:id',
  'POST /api/marketplace',
  'POST /api/marketplace/:id/purchase',
  'GET /api/marketplace/:id/reviews',
  'POST /api/marketplace/:id/reviews',
  'GET /api/marketplace/my-listings',
  'GET /api/marketplace/purchases',
  'GET /api/billing/subscription',
  'POST /api/billing/checkout',
  'POST /api/billing/portal',
  'GET /api/billing/usage',
  'GET /api/billing/invoices',
];

describe('the route table', () => {
  const all = Object.values(routes) as RouteDef[];
  const signatures = all.map((r) => `${r.method} ${r.path}`);

  it('has every endpoint of docs/spec.md, once', () => {
    for (const endpoint of SPEC_ENDPOINTS) expect(signatures).toContain(endpoint);
    expect(new Set(signatures).size).toBe(signatures.length);
  });

  it('answers creates with 201 (backtests 202), deletes with 204 and no body', () => {
    for (const r of all) {
      if (r.method === 'DELETE') expect([r.successStatus, r.response]).toEqual([204, null]);
    }
    expect(routes['strategies.create'].successStatus).toBe(201);
    expect(routes['backtests.create'].successStatus).toBe(202);
  });

  it('rejects unknown body fields on every route that takes a body', () => {
    for (const r of all.filter((r) => r.body)) {
      const result = r.body!.safeParse({ surelyUnknownField: 1 });
      expect(result.success, `${r.method} ${r.path}`).toBe(false);
    }
  });

  it('maps the error codes of docs/api-contract.md to their statuses', () => {
    expect(ERROR_STATUS).toMatchObject({
      VALIDATION_FAILED: 400,
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      CONFLICT: 409,
      PAYLOAD_TOO_LARGE: 413,
      PLAN_LIMIT_EXCEEDED: 402,
      RATE_LIMITED: 429,
      UNAVAILABLE: 503,
      INTERNAL: 500,
    });
  });
});

describe('the generated OpenAPI document', () => {
  const doc = generateOpenApi();

  it('is OpenAPI 3.1 with an operation per route, in {param} path syntax', () => {
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations).toHaveLength(Object.keys(routes).length);
    expect(operations).toContain('GET /api/strategies/{id}');
    expect(operations).toContain('PUT /api/marketplace/{id}/reviews/{reviewId}');
  });

  it('documents request bodies, query parameters and errors from the schemas', () => {
    const create = (doc.paths['/api/strategies'] as Record<string, any>).post;
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateStrategyBody' });
    const body = (doc.components.schemas as Record<string, any>).CreateStrategyBody;
    expect(body.required).toEqual(['name', 'source']);
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '413', '500']));
    const list = (doc.paths['/api/backtests'] as Record<string, any>).get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(['strategyId', 'status', 'limit', 'cursor']);
    expect((doc.paths['/api/billing/webhook'] as Record<string, any>).post.security).toEqual([]);
  });

  it('documents the RateLimit headers on every response, and Retry-After on 429', () => {
    const list = (doc.paths['/api/strategies'] as Record<string, any>).get;
    for (const status of ['200', '400', '401', '429']) {
      expect(Object.keys(list.responses[status].headers)).toEqual(expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
    }
    expect(list.responses['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(list.responses['200'].headers['Retry-After']).toBeUndefined();
    expect(Object.keys(doc.components.headers)).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'X-Request-Id']);
    expect(list.responses['200'].headers['X-Request-Id']).toEqual({ $ref: '#/components/headers/X-Request-Id' });
  });

  it('names its schemas in components, references them, and keeps only those it uses', () => {
    const schemas = doc.components.schemas as Record<string, any>;
    const get = (doc.paths['/api/strategies/{id}'] as Record<string, any>).get;
    expect(get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/StrategyDetail' });
    expect(schemas.StrategyList.properties.strategies.items).toEqual({ $ref: '#/components/schemas/StrategySummary' });
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['ErrorBody', 'BacktestDetail', 'Deployment', 'Listing', 'Subscription']));
    expect(Object.keys(schemas)).not.toContain('ListStrategiesQuery');
    const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    for (const ref of refs) expect(schemas[ref!], ref).toBeDefined();
    for (const name of Object.keys(schemas)) expect(refs, name).toContain(name);
    expect(JSON.stringify(doc)).not.toContain('__input__');
  });

  it('has a license, and servers only when given', () => {
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect('servers' in doc).toBe(false);
    expect(generateOpenApi({ serverUrl: '/prefix' }).servers).toEqual([{ url: '/prefix' }]);
  });
});
