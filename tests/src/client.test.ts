import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createStratboxClient, StratboxClientError, type StratboxClient } from '@stratbox/client';
import type { StrategyDetail, StrategySummary } from '@stratbox/core/contract';
import { startTestService, type TestService } from './harness/in-process.js';

describe('the typed client against a running server', () => {
  let service: TestService;
  let client: StratboxClient;

  beforeAll(async () => {
    service = await startTestService();
    client = (await service.newUser('client')).client;
  });
  afterAll(() => service.close());

  it('calls every strategy method and gets contract-typed records back', async () => {
    const created = await client.strategies.create({ body: { name: 'c1', source: 'export function onCandle() {}' } });
    expectTypeOf(created).toEqualTypeOf<StrategyDetail>();
    expect(created).toMatchObject({ name: 'c1', description: '', marketType: 'LINEAR', version: 1 });

    const list = await client.strategies.list({ query: { limit: 10 } });
    expectTypeOf(list.strategies).toEqualTypeOf<StrategySummary[]>();
    expect(list.strategies.map((s) => s.id)).toContain(created.id);

    const updated = await client.strategies.update({ params: { id: created.id }, body: { source: 'export function onCandle(c) {}' } });
    expect(updated.version).toBe(2);
    expect((await client.strategies.get({ params: { id: created.id }, query: { version: 1 } })).sourceVersion).toBe(1);

    const result = await client.strategies.delete({ params: { id: created.id } });
    expect(result).toBeUndefined();
    await expect(client.strategies.get({ params: { id: created.id } })).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('pages through a list with nextCursor, newest first, with no duplicates or gaps', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await client.strategies.create({ body: { name: `p${i}`, source: `export function onCandle() {} // ${i}` } })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.strategies.list({ query: { limit: 3, ...(cursor ? { cursor } : {}) } });
      expect(page.strategies.length).toBeLessThanOrEqual(3);
      seen.push(...page.strategies.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    await expect(client.strategies.list({ query: { cursor: 'garbage' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
  });

  it('turns error bodies into StratboxClientError with the server code and details', async () => {
    const error = await client.strategies.create({ body: { name: '', source: 'export function onCandle() {}' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StratboxClientError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect((error as StratboxClientError).details).toEqual([expect.objectContaining({ path: 'body.name' })]);

    const anonymous = createStratboxClient({ baseUrl: service.baseUrl });
    await expect(anonymous.strategies.list()).rejects.toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });

  it('lists deployments (every route of the contract is implemented)', async () => {
    await expect(client.deployments.list()).resolves.toEqual({ deployments: [], nextCursor: null });
  });

  it('reports an unreachable server as UNAVAILABLE with status 0', async () => {
    const offline = createStratboxClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sbx_x' });
    await expect(offline.strategies.list()).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 0 });
  });

  it('uses the fetch it is given', async () => {
    const seen: string[] = [];
    const custom = createStratboxClient({
      baseUrl: service.baseUrl + '/',
      apiKey: 'sbx_nobody',
      fetch: (input, init) => {
        seen.push(`${init?.method} ${String(input)}`);
        return fetch(input, init);
      },
    });
    await expect(custom.strategies.get({ params: { id: 'str_' + 'a'.repeat(22) } })).rejects.toMatchObject({ status: 401 });
    expect(seen).toEqual([`GET ${service.baseUrl}/api/strategies/str_${'a'.repeat(22)}`]);
  });
});
