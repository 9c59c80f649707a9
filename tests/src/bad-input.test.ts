import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody, ID_PREFIXES, routes, type RouteDef, type RouteKey } from '@stratbox/core/contract';
import { z } from 'zod';
import { startTestService, type TestService } from './harness/in-process.js';

/** A valid body for every route that takes one, so that one extra field is the only problem. */
const VALID_BODIES: Partial<Record<RouteKey, Record<string, unknown>>> = {
  'strategies.create': { name: 'n', source: 'export function onCandle() {}' },
  'strategies.update': { name: 'n' },
  'backtests.create': { strategyId: `str_${'a'.repeat(22)}`, symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-02-01' },
  'backtests.monteCarlo': {},
  'optimizations.create': {
    strategyId: `str_${'a'.repeat(22)}`,
    symbols: ['BTC/USDT:USDT'],
    startDate: '2024-01-01',
    endDate: '2024-02-01',
    searchSpace: { fast: { values: [1, 2] } },
  },
  'credentials.create': { exchange: 'paper', label: 'l' },
  'deployments.create': { strategyId: `str_${'a'.repeat(22)}`, credentialId: `cred_${'a'.repeat(22)}`, symbols: ['BTC/USDT:USDT'] },
  'deployments.restart': { risk: { maxDrawdown: 0.2 } },
  'deployments.setDriftAlerts': { minCorrelation: 0.5 },
  'marketplace.create': { strategyId: `str_${'a'.repeat(22)}`, name: 'n', price: 0 },
  'marketplace.update': { name: 'n' },
  'marketplace.purchase': {},
  'marketplace.review': { rating: 5, text: 't' },
  'marketplace.updateReview': { rating: 5, text: 't' },
  'billing.checkout': { tier: 'pro' },
  'billing.portal': {},
  'notifications.create': { kind: 'webhook', label: 'l', url: 'https://hooks.example.com/stratbox' },
  'notifications.update': { label: 'l' },
};

const PARAM_KIND: Record<string, keyof typeof ID_PREFIXES> = { reviewId: 'review' };
const KIND_BY_GROUP: Record<string, keyof typeof ID_PREFIXES> = {
  strategies: 'strategy',
  backtests: 'backtest',
  optimizations: 'optimization',
  deployments: 'deployment',
  credentials: 'credential',
  marketplace: 'listing',
  notifications: 'notificationChannel',
};

function pathFor(key: RouteKey, route: RouteDef, badId = false): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    if (badId) return 'not-an-id';
    const kind = PARAM_KIND[name] ?? KIND_BY_GROUP[key.split('.')[0]!]!;
    return `${ID_PREFIXES[kind]}_${'Z'.repeat(22)}`;
  });
}

const bodyShape = (route: RouteDef): string[] => {
  let schema: z.ZodType | undefined = route.body;
  while (schema && !(schema instanceof z.ZodObject)) {
    const def = (schema as unknown as { def: { innerType?: z.ZodType; in?: z.ZodType } }).def;
    schema = def.innerType ?? def.in;
  }
  return schema ? Object.keys((schema as z.ZodObject).shape) : [];
};

const walked = (Object.entries(routes) as Array<[RouteKey, RouteDef]>).filter(([, r]) => r.auth !== 'webhook');

describe('every route answers bad input with the documented 4xx, never a 500', () => {
  let service: TestService;
  let key: string;

  beforeAll(async () => {
    service = await startTestService();
    key = (await service.newUser('walker')).apiKey;
  });
  afterAll(() => service.close());

  async function send(method: string, path: string, init: { body?: string; auth?: string | null; contentType?: string } = {}) {
    const headers: Record<string, string> = {};
    if (init.auth !== null) headers.authorization = init.auth ?? `Bearer ${key}`;
    if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
    const res = await fetch(service.baseUrl + path, { method, headers, ...(init.body !== undefined ? { body: init.body } : {}) });
    const text = await res.text();
    const parsed = ErrorBody.safeParse(text ? JSON.parse(text) : undefined);
    return { status: res.status, body: parsed.success ? parsed.data : null, text };
  }

  function expectError(result: Awaited<ReturnType<typeof send>>, status: number, code: string) {
    expect(result.status, result.text).toBe(status);
    expect(result.body?.error.code, result.text).toBe(code);
  }

  it('the walk covers every client route', () => {
    const withBody = walked
      .filter(([, r]) => r.body)
      .map(([k]) => k)
      .sort();
    expect(withBody).toEqual(Object.keys(VALID_BODIES).sort());
    expect(walked.length).toBeGreaterThanOrEqual(37);
  });

  for (const [routeKey, route] of walked) {
    const name = `${route.method} ${route.path}`;
    describe(name, () => {
      it('without credentials, or with a wrong key, answers 401 UNAUTHENTICATED (even with a malformed body)', async () => {
        const path = pathFor(routeKey, route);
        expectError(await send(route.method, path, { auth: null }), 401, 'UNAUTHENTICATED');
        expectError(await send(route.method, path, { auth: 'Bearer sbx_wrong' }), 401, 'UNAUTHENTICATED');
        expectError(await send(route.method, path, { auth: 'Basic dXNlcjpwYXNz' }), 401, 'UNAUTHENTICATED');
        if (route.body) expectError(await send(route.method, path, { auth: null, body: '{"name":' }), 401, 'UNAUTHENTICATED');
      });

      if (route.params) {
        it('a malformed id in the path answers 400 VALIDATION_FAILED', async () => {
          const result = await send(route.method, pathFor(routeKey, route, true), route.body ? { body: JSON.stringify(VALID_BODIES[routeKey]) } : {});
          expectError(result, 400, 'VALIDATION_FAILED');
          expect(JSON.stringify(result.body?.error.details)).toContain('params.');
        });
      }

      it('an unknown query parameter answers 400 VALIDATION_FAILED', async () => {
        const result = await send(route.method, `${pathFor(routeKey, route)}?zz_unknown=1`, route.body ? { body: JSON.stringify(VALID_BODIES[routeKey]) } : {});
        expectError(result, 400, 'VALIDATION_FAILED');
        expect(JSON.stringify(result.body?.error.details)).toContain('zz_unknown');
      });

      if (route.query && 'limit' in ((route.query as unknown as z.ZodObject).shape ?? {})) {
        it('a query parameter of the wrong type answers 400 VALIDATION_FAILED', async () => {
          for (const limit of ['abc', '0', '-1', '1.5', '100000', '']) {
            expectError(await send(route.method, `${pathFor(routeKey, route)}?limit=${limit}`), 400, 'VALIDATION_FAILED');
          }
        });
      }

      if (route.body) {
        const path = pathFor(routeKey, route);
        it('malformed JSON answers 400 VALIDATION_FAILED', async () => {
          for (const body of ['{"name":', '{name: 1}', 'undefined', '\u0000', '"just a string"', '42']) {
            expectError(await send(route.method, path, { body }), 400, 'VALIDATION_FAILED');
          }
        });

        it('a body of the wrong type, or any field of the wrong type, answers 400 VALIDATION_FAILED', async () => {
          expectError(await send(route.method, path, { body: '[1,2,3]' }), 400, 'VALIDATION_FAILED');
          expectError(await send(route.method, path, { body: 'null' }), 400, 'VALIDATION_FAILED');
          for (const field of bodyShape(route)) {
            const body = JSON.stringify({ ...VALID_BODIES[routeKey], [field]: { nested: true } });
            const result = await send(route.method, path, { body });
            expectError(result, 400, 'VALIDATION_FAILED');
            expect(JSON.stringify(result.body?.error.details)).toContain(`body.${field}`);
          }
        });

        it('an unknown field, or a field clients may not set, answers 400 VALIDATION_FAILED naming it', async () => {
          for (const field of ['zzTypo', 'id', 'userId', 'createdAt', 'status', 'version']) {
            if (bodyShape(route).includes(field)) continue;
            const result = await send(route.method, path, { body: JSON.stringify({ ...VALID_BODIES[routeKey], [field]: 'x' }) });
            expectError(result, 400, 'VALIDATION_FAILED');
            expect(result.body?.error.message).toContain(field);
          }
        });

        it('a body over the size limit answers 413 PAYLOAD_TOO_LARGE', async () => {
          const huge = JSON.stringify({ ...VALID_BODIES[routeKey], description: 'x'.repeat(3 * 1024 * 1024) });
          expectError(await send(route.method, path, { body: huge }), 413, 'PAYLOAD_TOO_LARGE');
        });
      }
    });
  }

  it('an unknown path or method under /api answers 404 NOT_FOUND in the error body', async () => {
    expectError(await send('GET', '/api/nope'), 404, 'NOT_FOUND');
    expectError(await send('PATCH', '/api/strategies'), 404, 'NOT_FOUND');
  });
});
