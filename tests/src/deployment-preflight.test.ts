import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCcxtExchange, createExchangeClientPool, createJsonLogger, createStratbox, type Stratbox, moveExchangeApi } from '@stratbox/core';
import {
  FAKE_BINANCE_API_KEY,
  FAKE_BINANCE_SECRET,
  listenLocally,
  secretEchoes,
  startFakeBinance,
  type FakeBinance,
  type LocalServer,
} from '@stratbox/core/testing';
import { createKyselyStore } from '@stratbox/store-kysely';
import { createApp } from '@stratbox/example-server/create-app';
import { tempDataDir } from './harness/server-process.js';

/*
 * Pre-flight checks end to end: the service with its HTTP API, on SQLite, trading through the
 * real ccxt binanceusdm class against the local Binance USDT-M double. A deployment whose
 * exchange account cannot trade fails within seconds of its create, never waiting for a candle
 * (the strategies here run on `1d`), with a code and a message that says what to fix, and none
 * of the exchange's answer, key or secret reaches the user or the log.
 */

const DAILY = "export const meta = { timeframe: '1d' };\nexport function onCandle(ctx, c) { ctx.buy(c.symbol, { quantity: 0.01 }); }\n";

describe('pre-flight checks of a new deployment', () => {
  const lines: string[] = [];
  const bodies: string[] = [];
  const data = tempDataDir();
  let fake: FakeBinance;
  let stratbox: Stratbox;
  let server: LocalServer;
  let apiKey: string;
  let credentialId: string;
  let strategyId: string;

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

  type View = {
    status: string;
    error: { code: string; message: string } | null;
    preflight: { ok: boolean; checks: Array<{ name: string; ok: boolean }> } | null;
  };
  const view = (id: string) => send('GET', `/api/deployments/${id}`) as Promise<View>;
  const orderPosts = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/fapi/v1/order');

  beforeAll(async () => {
    fake = await startFakeBinance();
    const store = await createKyselyStore({ dialect: 'sqlite', filename: join(data.dir, 'stratbox.sqlite') });
    const logger = createJsonLogger({ level: 'debug', write: (line) => lines.push(line) });
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
    server = await listenLocally(createServer(createApp(stratbox, { logRequests: true })));
    apiKey = (await stratbox.users.createUser('alice')).apiKey;
    credentialId = (
      (await send('POST', '/api/credentials', { exchange: 'binanceusdm', label: 'fake', apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET })) as {
        id: string;
      }
    ).id;
    strategyId = ((await send('POST', '/api/strategies', { name: 'daily buyer', source: DAILY })) as { id: string }).id;
  });
  afterAll(async () => {
    await server?.close();
    await stratbox?.close();
    await fake?.close();
    data.remove();
  });

  it('a credential the exchange answers 401 is failed with EXCHANGE_AUTHENTICATION within 10 s of its create, on a 1d strategy; nothing of the key, the secret or the answer shows', async () => {
    const echoes = [...secretEchoes(FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET), ...secretEchoes(FAKE_BINANCE_SECRET)];
    fake.account.rejectSignedRequests = true;
    // The exchange (or a proxy before it) echoes the key and the secret back in every form.
    fake.account.rejectSignedBody = (sent) => ({ code: -2015, msg: `Invalid API-key, IP, or permissions for action: ${sent} ${echoes.join(' | ')}` });
    try {
      const createdAt = Date.now();
      const created = (await send('POST', '/api/deployments', { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} })) as { id: string };
      await expect.poll(async () => (await view(created.id)).status, { timeout: 10_000, interval: 50 }).toBe('failed');
      expect(Date.now() - createdAt).toBeLessThanOrEqual(10_000);

      const failed = await view(created.id);
      expect(failed.error).toEqual({
        code: 'EXCHANGE_AUTHENTICATION',
        message: expect.stringMatching(/^binanceusdm refused the API key: check the credential's key, secret and permissions/),
      });
      expect(failed.preflight).toMatchObject({ ok: false });
      expect(failed.preflight!.checks.find((c) => c.name === 'credential')).toMatchObject({ ok: false });
      expect(fake.calls.some((c) => c.path === '/fapi/v3/account')).toBe(true);
      expect(orderPosts()).toHaveLength(0);

      const logs = (await send('GET', `/api/deployments/${created.id}/logs?limit=1000`)) as Array<{ message: string }>;
      expect(logs.some((l) => l.message.startsWith('Deployment failed (EXCHANGE_AUTHENTICATION): binanceusdm refused the API key'))).toBe(true);
      for (const text of [...bodies, ...lines]) {
        for (const echo of echoes) expect(text).not.toContain(echo);
        expect(text).not.toMatch(/Invalid API-key|-2015/);
      }
    } finally {
      fake.account.rejectSignedRequests = false;
      delete fake.account.rejectSignedBody;
    }
  });

  it('a restart runs the checks again: once the exchange accepts the key, the failed deployment runs', async () => {
    fake.account.rejectSignedRequests = true;
    const created = (await send('POST', '/api/deployments', { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} })) as { id: string };
    await expect.poll(async () => (await view(created.id)).status, { timeout: 10_000, interval: 50 }).toBe('failed');
    fake.account.rejectSignedRequests = false;
    const accountCalls = () => fake.calls.filter((c) => c.path === '/fapi/v3/account').length;
    const before = accountCalls();
    await send('POST', `/api/deployments/${created.id}/restart`);
    await expect.poll(async () => (await view(created.id)).status, { timeout: 20_000, interval: 50 }).toBe('running');
    const running = await view(created.id);
    expect(running.error).toBeNull();
    expect(running.preflight).toMatchObject({ ok: true });
    expect(running.preflight!.checks.find((c) => c.name === 'credential')).toMatchObject({ ok: true });
    expect(accountCalls()).toBeGreaterThan(before);
    await send('POST', `/api/deployments/${created.id}/stop`);
    await expect.poll(async () => (await view(created.id)).status, { timeout: 20_000, interval: 50 }).toBe('stopped');
  });

  it('a hedge-mode account that refuses to switch is failed with EXCHANGE_POSITION_MODE naming the fix, before any order', async () => {
    fake.account.dualSidePosition = true;
    fake.account.refusePositionModeChange = true;
    try {
      const created = (await send('POST', '/api/deployments', { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} })) as { id: string };
      await expect.poll(async () => (await view(created.id)).status, { timeout: 10_000, interval: 50 }).toBe('failed');
      const failed = await view(created.id);
      expect(failed.error?.code).toBe('EXCHANGE_POSITION_MODE');
      expect(failed.error?.message).toMatch(/hedge mode .*switch the account to one-way mode in binanceusdm's futures settings/);
      expect(fake.calls.some((c) => c.method === 'POST' && c.path === '/fapi/v1/positionSide/dual')).toBe(true);
      expect(orderPosts()).toHaveLength(0);
    } finally {
      fake.account.dualSidePosition = false;
      fake.account.refusePositionModeChange = false;
    }
  });

  it('a symbol the exchange does not list is failed with EXCHANGE_SYMBOL', async () => {
    const created = (await send('POST', '/api/deployments', { strategyId, credentialId, symbols: ['DOGE/USDT:USDT'], params: {} })) as { id: string };
    await expect.poll(async () => (await view(created.id)).status, { timeout: 10_000, interval: 50 }).toBe('failed');
    expect((await view(created.id)).error).toEqual({
      code: 'EXCHANGE_SYMBOL',
      message: "binanceusdm does not list DOGE/USDT:USDT as a USDT-margined perpetual: check the symbol's spelling and market type",
    });
  });

  it('an account that passes is running at once, its pre-flight report on the deployment, with no candle closed', async () => {
    const created = (await send('POST', '/api/deployments', { strategyId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} })) as { id: string };
    await expect.poll(async () => (await view(created.id)).status, { timeout: 20_000, interval: 50 }).toBe('running');
    const running = await view(created.id);
    expect(running.preflight?.ok).toBe(true);
    expect(running.preflight?.checks.map((c) => c.name)).toEqual(['clock', 'credential', 'symbols', 'limits', 'position_mode', 'leverage']);
    expect(orderPosts()).toHaveLength(0);
    await send('POST', `/api/deployments/${created.id}/stop`);
  });
});
