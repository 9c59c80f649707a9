import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { createUserWithCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';
import { expectError } from './harness/client-errors.js';

const SMA_V1 = 'export const meta = { timeframe: "1h" };\nexport function onCandle(ctx, candle) {}\n';
const SMA_V2 = 'export const meta = { timeframe: "4h" };\nexport function onCandle(ctx, candle) { ctx.log(candle.close); }\n';

describe('the example server, started as `pnpm start` does, on SQLite', () => {
  const data = tempDataDir();
  const env = { DATA_DIR: data.dir };
  let server: ServerProcess;
  let client: StratboxClient;
  let raw: (path: string, init?: RequestInit) => Promise<Response>;
  let aliceKey: string;

  beforeAll(async () => {
    server = await startServerProcess(env);
    const user = await createUserWithCli('alice', env);
    expect(user.userId).toMatch(/^usr_[A-Za-z0-9_-]{16,}$/);
    aliceKey = user.apiKey;
    client = createStratboxClient({ baseUrl: server.baseUrl, apiKey: user.apiKey });
    raw = (path, init = {}) =>
      fetch(server.baseUrl + path, { ...init, headers: { authorization: `Bearer ${user.apiKey}`, 'content-type': 'application/json', ...init.headers } });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    data.remove();
  });

  it('creates, lists, gets, versions, renames and deletes a strategy as docs/api-contract.md says', async () => {
    const createdRes = await raw('/api/strategies', {
      method: 'POST',
      body: JSON.stringify({ name: 'SMA cross', description: 'fast/slow', source: SMA_V1, marketType: 'LINEAR' }),
    });
    expect(createdRes.status).toBe(201);
    const created = (await createdRes.json()) as Record<string, unknown>;
    expect(created).toMatchObject({ name: 'SMA cross', description: 'fast/slow', marketType: 'LINEAR', version: 1, source: SMA_V1 });
    expect(created.id).toMatch(/^str_/);
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const id = created.id as string;

    const list = await raw('/api/strategies');
    expect(list.status).toBe(200);
    const listBody = (await list.json()) as { strategies: Array<Record<string, unknown>>; nextCursor: string | null };
    expect(listBody.nextCursor).toBeNull();
    expect(listBody.strategies.map((s) => s.id)).toEqual([id]);
    expect(listBody.strategies[0]).not.toHaveProperty('source');

    const updated = await client.strategies.update({ params: { id }, body: { source: SMA_V2 } });
    expect(updated.version).toBe(2);
    expect(updated.source).toBe(SMA_V2);
    expect(updated.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(updated.versions[0]!.sizeBytes).toBe(Buffer.byteLength(SMA_V2));

    const renamed = await client.strategies.update({ params: { id }, body: { name: 'SMA cross v2', description: 'renamed' } });
    expect(renamed).toMatchObject({ name: 'SMA cross v2', description: 'renamed', version: 2 });
    expect(renamed.versions).toHaveLength(2);

    const latest = await client.strategies.get({ params: { id } });
    expect(latest).toMatchObject({ version: 2, sourceVersion: 2, source: SMA_V2, name: 'SMA cross v2' });
    const first = await client.strategies.get({ params: { id }, query: { version: 1 } });
    expect(first).toMatchObject({ version: 2, sourceVersion: 1, source: SMA_V1 });
    await expectError(client.strategies.get({ params: { id }, query: { version: 3 } }), 404, 'NOT_FOUND');

    const deleted = await raw(`/api/strategies/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const gone = await raw(`/api/strategies/${id}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ error: { code: 'NOT_FOUND', message: `Strategy ${id} not found` } });
  });

  it('refuses a source of 512,001 bytes with 413 on create and update, and accepts 512,000', async () => {
    const exact = 'export function onCandle() {}\n//' + 'x'.repeat(512_000 - 32);
    expect(Buffer.byteLength(exact)).toBe(512_000);
    const ok = await client.strategies.create({ body: { name: 'big', source: exact } });
    expect(ok.versions[0]!.sizeBytes).toBe(512_000);

    const tooBig = exact + 'x';
    const res = await raw('/api/strategies', { method: 'POST', body: JSON.stringify({ name: 'too big', source: tooBig }) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    await expectError(client.strategies.update({ params: { id: ok.id }, body: { source: tooBig } }), 413, 'PAYLOAD_TOO_LARGE');
    // multi-byte: 256,001 two-byte characters are 512,002 bytes though fewer characters than the limit
    await expectError(client.strategies.create({ body: { name: 'utf8', source: 'é'.repeat(256_001) } }), 413, 'PAYLOAD_TOO_LARGE');
    const after = await client.strategies.get({ params: { id: ok.id } });
    expect(after.version).toBe(1);
  });

  it('logs each request as one JSON line without secrets', async () => {
    await client.strategies.list();
    await new Promise((r) => setTimeout(r, 50));
    const requests = server.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    const last = requests.find((r) => r.method === 'GET' && r.path === '/api/strategies');
    expect(last).toMatchObject({ level: 'info', status: 200 });
    expect(last!.userId).toMatch(/^usr_/);
    expect(server.lines.join('\n')).not.toMatch(/sbx_/);
  });

  it('stops cleanly on SIGTERM and keeps the data for the next start', async () => {
    const kept = await client.strategies.create({ body: { name: 'kept', source: SMA_V1 } });
    const code = await server.stop('SIGTERM');
    expect(code).toBe(0);
    expect(server.lines.some((l) => l.includes('"msg":"stopped"'))).toBe(true);

    server = await startServerProcess(env);
    const alice = createStratboxClient({ baseUrl: server.baseUrl, apiKey: aliceKey });
    const found = await alice.strategies.get({ params: { id: kept.id } });
    expect(found).toMatchObject({ name: 'kept', source: SMA_V1, version: 1 });
    const stranger = createStratboxClient({ baseUrl: server.baseUrl, apiKey: 'sbx_' + 'A'.repeat(43) });
    await expectError(stranger.strategies.list(), 401, 'UNAUTHENTICATED');
    const user = await createUserWithCli('bob', env);
    const bob = createStratboxClient({ baseUrl: server.baseUrl, apiKey: user.apiKey });
    await expectError(bob.strategies.get({ params: { id: kept.id } }), 404, 'NOT_FOUND');
  });
});
