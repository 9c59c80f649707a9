import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCcxtExchange, createExchangeClientPool, createJsonLogger, createStratbox, type Clock, type Stratbox, moveExchangeApi } from '@stratbox/core';
import { listenLocally, secretEchoes, startFakeBinance, type FakeBinance, type LocalServer } from '@stratbox/core/testing';
import { createKyselyStore } from '@stratbox/store-kysely';
import { StratboxClientError, type StratboxClient } from '@stratbox/client';
import { createApp } from '@stratbox/example-server/create-app';
import { startTestService, type TestService } from './harness/in-process.js';
import { tempDataDir } from './harness/server-process.js';
import { waitFor } from './harness/deferred.js';

/*
 * Exchange credentials over HTTP (`credentials.*` routes): user B can neither see nor use user
 * A's credential (404 each, exactly as a missing one), and a credential's secrets never come
 * back in any response nor appear in any log line.
 */

const SECRET = 'xQ7-secret-must-never-leak-Zr2Lw9Vb4';
const API_KEY = 'live-api-key-9c1d5e7f3a2b-K3YH';
const PASSWORD = 'pass-phrase-never-shown-77Gh';
const SOURCE = 'export function onCandle(ctx, candle) {}\n';

const createBody = (overrides: Record<string, unknown> = {}) => ({
  exchange: 'binanceusdm',
  label: 'Main account',
  apiKey: API_KEY,
  secret: SECRET,
  password: PASSWORD,
  testnet: true,
  ...overrides,
});

async function expect404(call: Promise<unknown>, id: string) {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StratboxClientError);
  expect((error as StratboxClientError).status).toBe(404);
  expect((error as StratboxClientError).code).toBe('NOT_FOUND');
  expect((error as StratboxClientError).message).toBe(`Credential ${id} not found`);
}

describe('credentials are scoped to their owner', () => {
  let service: TestService;
  let alice: StratboxClient;
  let bob: StratboxClient;
  let id: string;

  beforeAll(async () => {
    service = await startTestService();
    alice = (await service.newUser('alice')).client;
    bob = (await service.newUser('bob')).client;
    id = (await alice.credentials.create({ body: createBody() })).id;
    await bob.credentials.create({ body: createBody({ label: 'bob own', exchange: 'paper' }) });
  });
  afterAll(() => service.close());

  it('a paper credential needs no key or secret (no key hint); any other exchange answers 400 naming each missing one', async () => {
    const paper = await alice.credentials.create({ body: { exchange: 'paper', label: 'Paper, no keys' } });
    expect(paper).toEqual({
      id: expect.stringMatching(/^cred_/),
      exchange: 'paper',
      label: 'Paper, no keys',
      testnet: false,
      keyHint: '',
      createdAt: expect.any(String),
    });
    expect(await alice.credentials.get({ params: { id: paper.id } })).toEqual(paper);
    for (const body of [
      { exchange: 'binanceusdm', label: 'no keys' },
      { exchange: 'bybit', label: 'no secret', apiKey: API_KEY },
    ]) {
      const error = await alice.credentials.create({ body }).then(
        () => null,
        (e: unknown) => e as StratboxClientError,
      );
      expect(error?.status).toBe(400);
      expect(error?.code).toBe('VALIDATION_FAILED');
      const missing = 'apiKey' in body ? ['body.secret'] : ['body.apiKey', 'body.secret'];
      expect((error!.details as Array<{ path: string; message: string }>).map((d) => d.path)).toEqual(missing);
      expect((error!.details as Array<{ message: string }>)[0]!.message).toBe(`Required for exchange "${body.exchange}" (only "paper" needs no keys)`);
    }
    await alice.credentials.delete({ params: { id: paper.id } });
  });

  it('the owner gets the credential without its secrets, with the last 4 characters of the key', async () => {
    const credential = await alice.credentials.get({ params: { id } });
    expect(credential).toEqual({ id, exchange: 'binanceusdm', label: 'Main account', testnet: true, keyHint: 'K3YH', createdAt: expect.any(String) });
  });

  it('GET /api/credentials/:id by another user answers 404', async () => {
    await expect404(bob.credentials.get({ params: { id } }), id);
  });

  it('DELETE /api/credentials/:id by another user answers 404 and keeps the credential', async () => {
    await expect404(bob.credentials.delete({ params: { id } }), id);
    expect((await alice.credentials.get({ params: { id } })).id).toBe(id);
  });

  it("GET /api/credentials never lists another user's credential", async () => {
    expect((await bob.credentials.list()).credentials.map((c) => c.label)).toEqual(['bob own']);
    expect((await alice.credentials.list()).credentials.map((c) => c.id)).toEqual([id]);
  });

  it("POST /api/deployments with another user's credential answers 404 for the credential", async () => {
    const strategyId = (await bob.strategies.create({ body: { name: 'bob strategy', source: SOURCE } })).id;
    await expect404(bob.deployments.create({ body: { strategyId, credentialId: id, symbols: ['BTC/USDT:USDT'] } }), id);
  });

  it('a missing id answers the very same 404 as a foreign one', async () => {
    const missing = 'cred_' + 'Q'.repeat(22);
    await expect404(bob.credentials.get({ params: { id: missing } }), missing);
    await expect404(bob.credentials.delete({ params: { id: missing } }), missing);
  });

  it('an unknown exchange is VALIDATION_FAILED', async () => {
    const error = await alice.credentials.create({ body: createBody({ exchange: 'mtgox' }) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StratboxClientError);
    expect((error as StratboxClientError).status).toBe(400);
    expect((error as StratboxClientError).code).toBe('VALIDATION_FAILED');
  });
});

describe('credential secrets never leave the server', () => {
  const lines: string[] = [];
  const data = tempDataDir();
  let stratbox: Stratbox;
  let server: LocalServer;
  let baseUrl: string;
  let apiKey: string;
  const bodies: string[] = [];
  let restore: () => void = () => {};

  /** Sends a request as the user and keeps the raw response body. */
  async function send(method: string, path: string, body?: unknown): Promise<Response> {
    const response = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const headers: string[] = [];
    response.headers.forEach((value, key) => headers.push(`${key}: ${value}`));
    bodies.push(`${response.status}\n${headers.join('\n')}\n${await response.clone().text()}`);
    return response;
  }

  beforeAll(async () => {
    // Everything the process prints while the requests run is captured as well.
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => (
      lines.push(String(chunk)), out(chunk as string, ...(rest as []))
    )) as typeof process.stdout.write;
    process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => (
      lines.push(String(chunk)), err(chunk as string, ...(rest as []))
    )) as typeof process.stderr.write;
    restore = () => {
      process.stdout.write = out;
      process.stderr.write = err;
    };
    const store = await createKyselyStore({ dialect: 'sqlite', filename: join(data.dir, 'stratbox.sqlite') });
    stratbox = createStratbox({ store, logger: createJsonLogger({ level: 'debug', write: (line) => lines.push(line) }) });
    server = await listenLocally(createServer(createApp(stratbox, { logRequests: true })));
    baseUrl = server.url;
    apiKey = (await stratbox.users.createUser('alice')).apiKey;
  });
  afterAll(async () => {
    restore();
    await server.close();
    await stratbox.close();
    data.remove();
  });

  it('creates, lists, reads and deletes a credential; no response body, header or log line holds a secret', async () => {
    const created = await send('POST', '/api/credentials', createBody());
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await send('GET', '/api/credentials')).status).toBe(200);
    expect((await send('GET', `/api/credentials/${id}`)).status).toBe(200);
    // Failing requests that carry the secrets: unknown field, unknown exchange, malformed JSON, too long.
    expect((await send('POST', '/api/credentials', { ...createBody(), note: SECRET })).status).toBe(400);
    expect((await send('POST', '/api/credentials', createBody({ exchange: 'nosuchexchange' }))).status).toBe(400);
    expect((await send('POST', '/api/credentials', `{"apiKey":"${API_KEY}","secret":"${SECRET}",`)).status).toBe(400);
    expect((await send('POST', '/api/credentials', createBody({ label: `${SECRET}`.repeat(10) }))).status).toBe(400);
    expect((await send('POST', '/api/credentials', createBody({ secret: SECRET.repeat(200) }))).status).toBe(400);
    // An exchange other than paper without its key: 400, the secret it did carry echoed nowhere.
    const keyless = await send('POST', '/api/credentials', { exchange: 'binanceusdm', label: 'no key', secret: SECRET });
    expect(keyless.status).toBe(400);
    expect(((await keyless.json()) as { error: { details: Array<{ path: string }> } }).error.details.map((d) => d.path)).toEqual(['body.apiKey']);
    expect((await send('DELETE', `/api/credentials/${id}`)).status).toBe(204);
    expect((await send('GET', `/api/credentials/${id}`)).status).toBe(404);

    expect(lines.some((line) => line.includes('/api/credentials'))).toBe(true);
    for (const text of [...bodies, ...lines]) {
      for (const secret of [SECRET, API_KEY, PASSWORD]) expect(text).not.toContain(secret);
    }
  });
});

describe('an exchange that echoes the API key back in any form', () => {
  // A key with characters that URL-encoding and JSON escaping change.
  const KEY = 'live/Key+9c1d"5e7f=3a2b-K3YH';
  const echoes = secretEchoes(KEY, SECRET);
  const lines: string[] = [];
  const bodies: string[] = [];
  const data = tempDataDir();
  let fake: FakeBinance;
  let stratbox: Stratbox;
  let server: LocalServer;
  let apiKey: string;

  async function send(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    bodies.push(`${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  beforeAll(async () => {
    fake = await startFakeBinance();
    // The exchange answers the unknown key 401 with the key in every form, in JSON and in plain text (as a proxy would).
    fake.unauthorizedBody = (sent) => JSON.stringify({ code: -2014, msg: `API-key format invalid: ${sent} (${secretEchoes(sent, SECRET).join(' | ')})` });
    const start = Date.now();
    const clock: Clock = { now: () => new Date(start + (Date.now() - start) * 400) }; // a '1m' candle closes every 150 ms
    const store = await createKyselyStore({ dialect: 'sqlite', filename: join(data.dir, 'stratbox.sqlite') });
    const logger = createJsonLogger({ level: 'debug', write: (line) => lines.push(line) });
    const exchanges = createExchangeClientPool({
      clock,
      logger,
      async createExchange(id, config) {
        const exchange = await createCcxtExchange(id, config);
        moveExchangeApi(exchange, fake.url);
        return exchange;
      },
    });
    stratbox = createStratbox({ store, logger, clock, deployments: { exchanges, pollIntervalMs: 40 } });
    await stratbox.start();
    server = await listenLocally(createServer(createApp(stratbox, { logRequests: true })));
    apiKey = (await stratbox.users.createUser('alice')).apiKey;
  });
  afterAll(async () => {
    await server?.close();
    await stratbox?.close();
    await fake?.close();
    data.remove();
  });

  it('fails the deployment with a clear reason; no error, log line, API answer or server log holds the key in any encoding', async () => {
    const credential = (await send('POST', '/api/credentials', { exchange: 'binanceusdm', label: 'echo', apiKey: KEY, secret: SECRET })) as { id: string };
    const strategy = (await send('POST', '/api/strategies', {
      name: 'buyer',
      source: "export const meta = { timeframe: '1m' };\nexport function onCandle(ctx, c) { ctx.buy(c.symbol, { quantity: 0.01 }); }\n",
    })) as { id: string };
    const created = (await send('POST', '/api/deployments', {
      strategyId: strategy.id,
      credentialId: credential.id,
      symbols: ['BTC/USDT:USDT'],
      params: {},
    })) as { id: string };
    const failed = await waitFor('the deployment to fail', async () => {
      const d = (await send('GET', `/api/deployments/${created.id}`)) as { status: string; error: { code: string; message: string } | null };
      return d.status === 'failed' ? d : null;
    });
    expect(failed.error).toEqual({
      code: 'EXCHANGE_AUTHENTICATION',
      message: expect.stringMatching(/^binanceusdm refused the API key: check the credential's key, secret and permissions \(AuthenticationError/),
    });
    expect(fake.calls.some((c) => c.path === '/fapi/v3/account')).toBe(true);
    // A plain-text 401 from a proxy, on the stop's cancel.
    fake.unauthorizedBody = (sent) => `Unauthorized: no such key ${echoes.join(', ')} / ${sent}`;
    const stopped = (await send('POST', `/api/deployments/${created.id}/stop`)) as { status: string; error: { code: string } | null };
    expect(stopped).toMatchObject({ status: 'failed', error: { code: 'STOP_FAILED' } });
    const logs = (await send('GET', `/api/deployments/${created.id}/logs?limit=1000`)) as Array<{ message: string }>;
    expect(logs.some((l) => l.message.includes('Deployment failed (EXCHANGE_AUTHENTICATION): binanceusdm refused the API key'))).toBe(true);
    await send('GET', '/api/deployments');

    expect(lines.some((line) => line.includes('/api/deployments'))).toBe(true);
    for (const text of [...bodies, ...lines]) {
      for (const echo of echoes) expect(text).not.toContain(echo);
      expect(text).not.toMatch(/format invalid|no such key/);
    }
  });
});

describe('credentials through the typed client', () => {
  let service: TestService;
  let client: StratboxClient;

  beforeAll(async () => {
    service = await startTestService();
    client = (await service.newUser('carol')).client;
  });
  afterAll(() => service.close());

  it('pages the list newest first and refuses unknown body fields', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await client.credentials.create({ body: createBody({ label: `k${i}`, exchange: 'paper' }) })).id);
    const first = await client.credentials.list({ query: { limit: 2 } });
    expect(first.credentials).toHaveLength(2);
    const second = await client.credentials.list({ query: { limit: 2, cursor: first.nextCursor! } });
    expect(second.credentials).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    // Newest first (ties, within one millisecond, by id): every credential exactly once.
    const listed = [...first.credentials, ...second.credentials];
    expect(listed.map((c) => c.id).sort()).toEqual([...ids].sort());
    for (let i = 1; i < listed.length; i++) expect(listed[i - 1]!.createdAt >= listed[i]!.createdAt).toBe(true);
    const error = await client.credentials.create({ body: { ...createBody(), id: 'cred_' + 'A'.repeat(22) } as never }).catch((e: unknown) => e);
    expect((error as StratboxClientError).status).toBe(400);
  });
});
