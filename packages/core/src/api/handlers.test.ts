import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { routeKeys, routes, type RouteKey } from '@stratbox/contract';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import { isStratboxError } from '../errors/stratbox-error.js';
import { createSilentLogger } from '../ports/logger.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createApiHandlers, type ApiHandler, type ApiHandlers, type HandlerContext } from './handlers.js';

/**
 * Type-level half (vitest runs with typecheck off): `pnpm typecheck` compiles this file, and the
 * `@ts-expect-error` below must be an error, or the compile fails. So `ApiHandlers` stays
 * exhaustive: were it made `Partial` again, a table without a route would type-check and this
 * file would not. A fallback filling gaps inside `createApiHandlers` is what the runtime half
 * below catches.
 */
describe('the API handler table is exhaustive', () => {
  it('does not type-check without a handler for every route', () => {
    const withoutOneRoute = (table: ApiHandlers): ApiHandlers => {
      const { 'billing.webhook': _dropped, ...rest } = table;
      // @ts-expect-error 'billing.webhook' is missing: a table needs a handler for every route of the contract
      return rest;
    };
    expect(typeof withoutOneRoute).toBe('function');
    expectTypeOf<keyof ApiHandlers>().toEqualTypeOf<RouteKey>();
    expectTypeOf<ApiHandlers>().toEqualTypeOf<Required<ApiHandlers>>();
    expectTypeOf(createApiHandlers).returns.toEqualTypeOf<ApiHandlers>();
  });
});

// One id of the right kind for each path parameter; none of them exists.
const MISSING_IDS: Record<string, Record<string, string>> = {
  strategies: { id: 'str_00000000000000000000aa' },
  backtests: { id: 'bt_00000000000000000000aa' },
  optimizations: { id: 'opt_00000000000000000000aa' },
  credentials: { id: 'cred_00000000000000000000aa' },
  deployments: { id: 'dep_00000000000000000000aa' },
  marketplace: { id: 'lst_00000000000000000000aa', reviewId: 'rev_00000000000000000000aa' },
  notifications: { id: 'nch_00000000000000000000aa' },
};

/** The validated input an adapter would pass: a missing record's id, the query's defaults, an empty body. */
function contextFor(key: RouteKey, userId: string): HandlerContext<RouteKey> {
  const route = routes[key];
  const group = key.split('.')[0] as string;
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
  const params = 'params' in route ? route.params.parse(Object.fromEntries(names.map((name) => [name, MISSING_IDS[group]?.[name]]))) : {};
  const rawQuery = key === 'marketData.candles' ? { symbol: 'BTC/USDT', timeframe: '1h', startDate: '2025-01-01', endDate: '2025-01-02' } : {};
  const query = 'query' in route ? route.query.parse(rawQuery) : {};
  const body = 'body' in route ? {} : undefined;
  return { userId, params, query, body, headers: {}, rawBody: new Uint8Array(), setHeader: () => {} } as unknown as HandlerContext<RouteKey>;
}

/**
 * Runtime half: every route of the contract reaches its service. A fresh user asking for missing
 * records with empty bodies gets an answer, or an error the route documents (or a 400): never
 * NOT_IMPLEMENTED (501), never a TypeError from a missing handler.
 */
describe('every route of the contract answers from its service', () => {
  let stratbox: Stratbox;
  let userId: string;

  beforeAll(async () => {
    // workerConcurrency 0: nothing runs a backtest, so no sandbox child is needed
    stratbox = createStratbox({ store: createMemoryStore(), logger: createSilentLogger(), sandbox: { size: 1 }, workerConcurrency: 0 });
    ({ userId } = await stratbox.users.createUser('handler-table'));
  });
  afterAll(() => stratbox.close());

  it('has exactly one handler per route', () => {
    expect(Object.keys(stratbox.api).sort()).toEqual([...routeKeys].sort());
    for (const key of routeKeys) expect(typeof stratbox.api[key], key).toBe('function');
  });

  it('answers every route as the contract documents, never NOT_IMPLEMENTED', async () => {
    const outcomes: Record<string, string> = {};
    for (const key of routeKeys) {
      const handler = stratbox.api[key] as ApiHandler<RouteKey>;
      const outcome = await handler(contextFor(key, userId)).then(
        () => 'ok',
        (e: unknown) => (isStratboxError(e) ? e.code : `not a StratboxError: ${String(e)}`),
      );
      outcomes[key] = outcome;
    }
    for (const key of routeKeys) {
      const outcome = outcomes[key] as string;
      const documented: readonly string[] = ['ok', 'VALIDATION_FAILED', ...routes[key].errors];
      expect(documented, `${key} answered ${outcome}`).toContain(outcome);
    }
  });
});
