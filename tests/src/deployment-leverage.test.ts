import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCcxtExchange, createExchangeClientPool, createJsonLogger, createStratbox, type Stratbox, moveExchangeApi } from '@stratbox/core';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET, listenLocally, startFakeBinance, type FakeBinance, type LocalServer } from '@stratbox/core/testing';
import { createKyselyStore } from '@stratbox/store-kysely';
import { createApp } from '@stratbox/example-server/create-app';
import { tempDataDir } from './harness/server-process.js';

/*
 * Leverage and margin mode of a deployment, end to end: the service with its HTTP API, on
 * SQLite, trading through the real ccxt binanceusdm class against the local Binance USDT-M
 * double. The pre-flight sets them on the exchange before the strategy opens (the strategy runs
 * on `1d`, so no candle closes during the test); a deployment that cannot apply them (spot, the
 * paper exchange, out of range) is refused at create.
 */

const DAILY = "export const meta = { timeframe: '1d' };\nexport function onCandle(ctx, c) { ctx.buy(c.symbol, { quantity: 0.01 }); }\n";

describe('leverage and margin mode of a deployment', () => {
  const data = tempDataDir();
  let fake: FakeBinance;
  let stratbox: Stratbox;
  let server: LocalServer;
  let apiKey: string;
  let credentialId: string;
  let paperCredentialId: string;
  let strategyId: string;

  async function send(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }
  const view = async (id: string) => (await send('GET', `/api/deployments/${id}`)).body;
  const deploymentCount = async () => ((await send('GET', '/api/deployments?limit=100')).body as { deployments: unknown[] }).deployments.length;

  beforeAll(async () => {
    fake = await startFakeBinance();
    const store = await createKyselyStore({ dialect: 'sqlite', filename: join(data.dir, 'stratbox.sqlite') });
    const logger = createJsonLogger({ level: 'warn', write: () => {} });
    const exchanges = createExchangeClientPool({
      logger,
      retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 50 },
      async createExchange(id, config) {
        const exchange = await createCcxtExchange(id, config);
        moveExchangeApi(exchange, fake.url);
        return exchange;
      },
    });
    stratbox = createStratbox({ store, logger, deployments: { exchanges, pollIntervalMs: 40 } });
    await stratbox.start();
    server = await listenLocally(createServer(createApp(stratbox, { logRequests: false })));
    apiKey = (await stratbox.users.createUser('alice')).apiKey;
    credentialId = (
      await send('POST', '/api/credentials', { exchange: 'binanceusdm', label: 'fake', apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET })
    ).body.id;
    paperCredentialId = (await send('POST', '/api/credentials', { exchange: 'paper', label: 'paper' })).body.id;
    strategyId = (await send('POST', '/api/strategies', { name: 'daily buyer', source: DAILY })).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await stratbox?.close();
    await fake?.close();
    data.remove();
  });

  it('sets leverage 3 and isolated margin on the exchange before any order, and shows them and the passed check', async () => {
    const created = await send('POST', '/api/deployments', { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], leverage: 3, marginMode: 'isolated' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ leverage: 3, marginMode: 'isolated' });
    const id = created.body.id as string;
    await expect.poll(async () => (await view(id)).status, { timeout: 20_000, interval: 50 }).toBe('running');

    const leverageCall = fake.calls.findIndex((c) => c.method === 'POST' && c.path === '/fapi/v1/leverage');
    const marginCall = fake.calls.findIndex((c) => c.method === 'POST' && c.path === '/fapi/v1/marginType');
    expect(leverageCall).toBeGreaterThanOrEqual(0);
    expect(marginCall).toBeGreaterThanOrEqual(0);
    expect(fake.calls[leverageCall]!.params).toMatchObject({ symbol: 'BTCUSDT', leverage: '3' });
    expect(fake.calls[marginCall]!.params).toMatchObject({ symbol: 'BTCUSDT', marginType: 'ISOLATED' });
    const firstOrder = fake.calls.findIndex((c) => c.path === '/fapi/v1/order' || c.path === '/fapi/v1/batchOrders');
    if (firstOrder >= 0) expect(firstOrder).toBeGreaterThan(Math.max(leverageCall, marginCall));

    const running = await view(id);
    expect(running).toMatchObject({ leverage: 3, marginMode: 'isolated', preflight: { ok: true } });
    const check = (running.preflight.checks as Array<{ name: string; ok: boolean; message: string }>).find((c) => c.name === 'leverage');
    expect(check).toMatchObject({ ok: true, message: expect.stringMatching(/3/) });

    await send('POST', `/api/deployments/${id}/stop`);
    await expect.poll(async () => (await view(id)).status, { timeout: 20_000, interval: 50 }).toBe('stopped');
  });

  it('a deployment without them changes nothing on the exchange and shows them as null', async () => {
    const before = fake.calls.filter((c) => c.path === '/fapi/v1/leverage' || c.path === '/fapi/v1/marginType').length;
    const created = await send('POST', '/api/deployments', { strategyId, credentialId, symbols: ['BTC/USDT:USDT'] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await expect.poll(async () => (await view(id)).status, { timeout: 20_000, interval: 50 }).toBe('running');
    expect(await view(id)).toMatchObject({ leverage: null, marginMode: null, preflight: { ok: true } });
    expect(fake.calls.filter((c) => c.path === '/fapi/v1/leverage' || c.path === '/fapi/v1/marginType')).toHaveLength(before);
    await send('POST', `/api/deployments/${id}/stop`);
    await expect.poll(async () => (await view(id)).status, { timeout: 20_000, interval: 50 }).toBe('stopped');
  });

  it.each([
    ['leverage on a spot deployment', () => ({ credentialId, symbols: ['BTC/USDT'], leverage: 3 }), 'body.leverage', /perpetual symbols/],
    ['a margin mode on a spot deployment', () => ({ credentialId, symbols: ['BTC/USDT'], marginMode: 'cross' }), 'body.marginMode', /perpetual symbols/],
    [
      'leverage on the paper exchange',
      () => ({ credentialId: paperCredentialId, symbols: ['BTC/USDT:USDT'], leverage: 3 }),
      'body.leverage',
      /paper exchange.*operator/,
    ],
    ['leverage 0', () => ({ credentialId, symbols: ['BTC/USDT:USDT'], leverage: 0 }), 'body.leverage', /./],
    ['leverage 126', () => ({ credentialId, symbols: ['BTC/USDT:USDT'], leverage: 126 }), 'body.leverage', /./],
    ['leverage 2.5', () => ({ credentialId, symbols: ['BTC/USDT:USDT'], leverage: 2.5 }), 'body.leverage', /./],
    ['an unknown margin mode', () => ({ credentialId, symbols: ['BTC/USDT:USDT'], marginMode: 'portfolio' }), 'body.marginMode', /./],
  ])('refuses %s with 400 VALIDATION_FAILED naming the field, creating nothing', async (_name, body, path, message) => {
    const before = await deploymentCount();
    const refused = await send('POST', '/api/deployments', { strategyId, ...body() });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(message) });
    expect(JSON.stringify(refused.body.error.details)).toContain(path.replace(/^body\./, ''));
    expect(await deploymentCount()).toBe(before);
  });
});
