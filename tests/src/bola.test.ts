import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StratboxClientError, type StratboxClient } from '@stratbox/client';
import { startTestService, type TestService } from './harness/in-process.js';

/**
 * Broken object-level authorisation: user B, using every strategy route on user A's strategy,
 * gets 404 exactly as for a missing record, and A's strategy is unchanged.
 */
describe('strategies are scoped to their owner', () => {
  let service: TestService;
  let alice: StratboxClient;
  let bob: StratboxClient;
  let id: string;
  const source = 'export function onCandle(ctx, candle) {}\n';

  beforeAll(async () => {
    service = await startTestService();
    alice = (await service.newUser('alice')).client;
    bob = (await service.newUser('bob')).client;
    id = (await alice.strategies.create({ body: { name: 'alpha', description: 'secret edge', source } })).id;
    await bob.strategies.create({ body: { name: 'bob own', source } });
  });
  afterAll(() => service.close());

  async function expect404(call: Promise<unknown>) {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StratboxClientError);
    expect((error as StratboxClientError).status).toBe(404);
    expect((error as StratboxClientError).code).toBe('NOT_FOUND');
    expect((error as StratboxClientError).message).toBe(`Strategy ${id} not found`);
  }

  const attempts: Record<string, () => Promise<unknown>> = {
    'GET /api/strategies/:id': () => bob.strategies.get({ params: { id } }),
    'GET /api/strategies/:id?version=1': () => bob.strategies.get({ params: { id }, query: { version: 1 } }),
    'PUT /api/strategies/:id (source)': () => bob.strategies.update({ params: { id }, body: { source: 'export function onCandle(){ }' } }),
    'PUT /api/strategies/:id (name)': () => bob.strategies.update({ params: { id }, body: { name: 'stolen' } }),
    'DELETE /api/strategies/:id': () => bob.strategies.delete({ params: { id } }),
  };

  for (const [route, attempt] of Object.entries(attempts)) {
    it(`${route} by another user answers 404 and leaves the strategy unchanged`, async () => {
      const before = await alice.strategies.get({ params: { id } });
      await expect404(attempt());
      expect(await alice.strategies.get({ params: { id } })).toEqual(before);
    });
  }

  it("GET /api/strategies never lists another user's strategy", async () => {
    const list = await bob.strategies.list();
    expect(list.strategies.map((s) => s.name)).toEqual(['bob own']);
  });

  it('a missing id answers the very same 404 as a foreign one', async () => {
    const missing = 'str_' + 'Q'.repeat(22);
    const error = (await bob.strategies.get({ params: { id: missing } }).catch((e: unknown) => e)) as StratboxClientError;
    expect(error.status).toBe(404);
    expect(error.message).toBe(`Strategy ${missing} not found`);
  });
});
