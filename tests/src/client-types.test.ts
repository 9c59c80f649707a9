import { describe, expect, expectTypeOf, it } from 'vitest';
import { createStratboxClient } from '@stratbox/client';
import type { StrategyDetail } from '@stratbox/core/contract';

/**
 * Type-level tests: `pnpm typecheck` (part of `pnpm test`) compiles this file, and every
 * `@ts-expect-error` below must be an error, or the compile fails. The calls are built but
 * never sent.
 */
describe('client types come from the contract', () => {
  it('accepts the right bodies and rejects wrong ones at compile time', () => {
    const client = createStratboxClient({ baseUrl: 'http://127.0.0.1:9', fetch: async () => new Response('{}') });
    const typed = () => {
      void client.strategies.create({ body: { name: 'ok', source: 'x' } });
      // @ts-expect-error name must be a string
      void client.strategies.create({ body: { name: 42, source: 'x' } });
      // @ts-expect-error source is required
      void client.strategies.create({ body: { name: 'x' } });
      // @ts-expect-error unknown fields are not part of the body type
      void client.strategies.create({ body: { name: 'x', source: 'x', userId: 'usr_1' } });
      // @ts-expect-error marketType is an enum
      void client.strategies.create({ body: { name: 'x', source: 'x', marketType: 'FUTURES' } });
      // @ts-expect-error params are required for get
      void client.strategies.get({});
      // @ts-expect-error the query has no such field
      void client.strategies.list({ query: { page: 2 } });
      // @ts-expect-error no such route
      void client.strategies.rename;
      // @ts-expect-error the webhook is for the payment provider, not for clients
      void client.billing.webhook;
    };
    expect(typeof typed).toBe('function');
    expectTypeOf(client.strategies.get).returns.resolves.toEqualTypeOf<StrategyDetail>();
    expectTypeOf(client.strategies.delete).returns.resolves.toEqualTypeOf<void>();
  });
});
