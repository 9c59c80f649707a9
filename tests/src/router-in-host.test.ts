import { createServer, request as httpRequest } from 'node:http';
import express, { type Express, type Request } from 'express';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonLogger, createMemoryStore, createStratbox, stripeBilling, type Stratbox } from '@stratbox/core';
import { listenLocally, type LocalServer } from '@stratbox/core/testing';
import { createHealthHandlers, createStratboxRouter, WEBHOOK_BODY_CONSUMED, type StratboxRouterOptions } from '@stratbox/adapter-express';
import { createApp } from '@stratbox/example-server/create-app';

/*
 * The Express router as a guest in a host app, over real HTTP: the host's own
 * `express.json({ limit: '2mb' })` BEFORE the router (what nearly every Express app has), its own
 * later `/api/health` route, its own session middleware setting `req.user`; CORS, the request id,
 * liveness and readiness, the OpenAPI document under a prefix; and the Stripe-signed billing
 * webhook (signed by the real `stripe` client) with the router before and after the host's parser.
 */

const WEBHOOK_SECRET = 'whsec_router_in_host';
const ALLOWED_ORIGIN = 'https://app.example.com';
const signer = new Stripe('sk_test_signer');

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

/** One HTTP request with full control of its headers (`Origin` included). */
function send(baseUrl: string, method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { method, headers: options.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A Stripe subscription event for `userId`, signed as Stripe signs it. */
function signedSubscriptionEvent(id: string, userId: string) {
  const now = Math.floor(Date.now() / 1000);
  const payload = JSON.stringify({
    id,
    object: 'event',
    type: 'customer.subscription.updated',
    created: now,
    livemode: false,
    data: {
      object: {
        id: `sub_${id}`,
        object: 'subscription',
        customer: `cus_${id}`,
        status: 'active',
        cancel_at_period_end: false,
        metadata: { stratboxUserId: userId, tier: 'pro' },
        items: { object: 'list', data: [{ id: 'si_1', price: { id: 'price_pro' }, current_period_start: now, current_period_end: now + 30 * 86_400 }] },
      },
    },
  });
  const signature = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  return { payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } };
}

/** The host's own session: `x-session: <user id>` stands for a cookie its session middleware reads. */
type SessionRequest = Request & { user?: { id: string } };

describe('the Express router mounted in a host app', () => {
  let stratbox: Stratbox;
  const logLines: Array<Record<string, unknown>> = [];
  const servers: LocalServer[] = [];

  beforeAll(async () => {
    stratbox = createStratbox({
      store: createMemoryStore(),
      logger: createJsonLogger({ level: 'debug', write: (line) => logLines.push(JSON.parse(line) as Record<string, unknown>) }),
      billing: {
        provider: stripeBilling({
          apiKey: 'sk_test_unused',
          webhookSecret: WEBHOOK_SECRET,
          prices: { pro: 'price_pro', team: 'price_team' },
          successUrl: 'https://app.example.com/done',
          cancelUrl: 'https://app.example.com/cancelled',
          // webhooks make no Stripe API call; anything else would fail fast here
          host: '127.0.0.1',
          port: 9,
          protocol: 'http',
          maxNetworkRetries: 0,
        }),
      },
    });
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await stratbox.close();
  });

  async function serve(app: Express): Promise<string> {
    const server = await listenLocally(createServer(app));
    servers.push(server);
    return server.url;
  }

  const routerOptions = (more: StratboxRouterOptions = {}): StratboxRouterOptions => ({ rateLimiter: false, ...more });

  /** The usual host: session middleware, `express.json({ limit: '2mb' })`, then the router, then its own `/api/health`. */
  async function typicalHost(more: StratboxRouterOptions = {}): Promise<string> {
    const app = express();
    app.use((req: SessionRequest, _res, next) => {
      const session = req.headers['x-session'];
      if (typeof session === 'string') req.user = { id: session };
      next();
    });
    app.use(express.json({ limit: '2mb' }));
    app.use(createStratboxRouter(stratbox, routerOptions(more)));
    app.get('/api/health', (_req, res) => {
      res.json({ host: 'healthy' });
    });
    return serve(app);
  }

  const sessionAuth: StratboxRouterOptions['authenticate'] = async (req: SessionRequest) => (req.user ? { userId: req.user.id } : null);

  it('accepts a 400 KB strategy source that the host parser already parsed, validated as is', async () => {
    const baseUrl = await typicalHost();
    const { apiKey } = await stratbox.users.createUser('big');
    const source = `export function onCandle(ctx, c) {}\n${'// padding to make the source large\n'.repeat(11_200)}`;
    expect(source.length).toBeGreaterThan(400_000);
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const created = await send(baseUrl, 'POST', '/api/strategies', { headers, body: JSON.stringify({ name: 'Big', source }) });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Big', version: 1 });
    // the body the host parsed is still checked against the contract: an unknown field is refused
    const typo = await send(baseUrl, 'POST', '/api/strategies', { headers, body: JSON.stringify({ name: 'X', source, sourcee: 1 }) });
    expect(typo.status).toBe(400);
    expect(typo.json().error.code).toBe('VALIDATION_FAILED');
  });

  it("leaves paths outside its contract to the host: the host's later /api/health answers", async () => {
    const baseUrl = await typicalHost();
    const health = await send(baseUrl, 'GET', '/api/health');
    expect(health.status).toBe(200);
    expect(health.json()).toEqual({ host: 'healthy' });
    // a wrong method on a contract path is still the router's: 404 NOT_FOUND with Allow
    const wrong = await send(baseUrl, 'PATCH', '/api/strategies');
    expect(wrong.status).toBe(404);
    expect(wrong.json().error.code).toBe('NOT_FOUND');
    expect(wrong.headers.allow).toBe('GET, POST, HEAD');
    // an unknown id on a contract route keeps the documented 404 body
    const { apiKey } = await stratbox.users.createUser('finder');
    const missing = await send(baseUrl, 'GET', '/api/strategies/str_AAAAAAAAAAAAAAAAAAAAAA', { headers: { authorization: `Bearer ${apiKey}` } });
    expect(missing.status).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });

  it('authenticate(req) receives the Express request, with req.user set by the host', async () => {
    const baseUrl = await typicalHost({ authenticate: sessionAuth });
    const headers = { 'x-session': 'usr_hostsessionalice', 'content-type': 'application/json' };
    const created = await send(baseUrl, 'POST', '/api/strategies', {
      headers,
      body: JSON.stringify({ name: 'Mine', source: 'export function onCandle() {}' }),
    });
    expect(created.status, created.text).toBe(201);
    const mine = await send(baseUrl, 'GET', '/api/strategies', { headers });
    expect(mine.json().strategies.map((s: { name: string }) => s.name)).toEqual(['Mine']);
    const anonymous = await send(baseUrl, 'GET', '/api/strategies');
    expect(anonymous.status).toBe(401);
    expect(anonymous.json().error.code).toBe('UNAUTHENTICATED');
  });

  it('CORS: a preflight from an allowed origin gets Access-Control-*; from another origin it is refused', async () => {
    const baseUrl = await typicalHost({ authenticate: sessionAuth, cors: { origins: [ALLOWED_ORIGIN], credentials: true } });
    const preflight = (origin: string) =>
      send(baseUrl, 'OPTIONS', '/api/strategies', {
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, sentry-trace' },
      });
    const allowed = await preflight(ALLOWED_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expect(String(allowed.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(allowed.headers['access-control-allow-headers']).toLowerCase()).toBe('authorization, content-type, sentry-trace');
    expect(allowed.headers['access-control-max-age']).toBe('600');
    const refused = await preflight('https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.json().error.code).toBe('FORBIDDEN');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    // the actual request from the allowed origin may be read by the page, its request id too
    const actual = await send(baseUrl, 'GET', '/api/strategies', { headers: { origin: ALLOWED_ORIGIN, 'x-session': 'usr_hostsessioncors' } });
    expect(actual.status).toBe(200);
    expect(actual.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
    expect(String(actual.headers['access-control-expose-headers']).toLowerCase()).toContain('x-request-id');
    // and the host's own paths get no CORS headers from the router
    const host = await send(baseUrl, 'GET', '/api/health', { headers: { origin: ALLOWED_ORIGIN } });
    expect(host.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without the cors option a preflight answers 404 with no Access-Control-* header', async () => {
    const baseUrl = await typicalHost();
    const preflight = await send(baseUrl, 'OPTIONS', '/api/strategies', { headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(404);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('the same signed webhook is accepted with the router before the host parser, and answered with the fix after it', async () => {
    const { userId } = await stratbox.users.createUser('payer');
    // router first (then the host's parser)
    const first = express();
    first.use(createStratboxRouter(stratbox, routerOptions()));
    first.use(express.json({ limit: '2mb' }));
    const firstUrl = await serve(first);
    // only the webhook path before the parser, the whole router after it
    const split = express();
    const splitRouter = createStratboxRouter(stratbox, routerOptions());
    split.post('/api/billing/webhook', splitRouter);
    split.use(express.json({ limit: '2mb' }));
    split.use(splitRouter);
    const splitUrl = await serve(split);
    // the host's parser first
    const afterUrl = await typicalHost();

    const event = signedSubscriptionEvent('evt_host_after', userId);
    const after = await send(afterUrl, 'POST', '/api/billing/webhook', {
      headers: { ...event.headers, 'x-request-id': 'webhook-after-1' },
      body: event.payload,
    });
    expect(after.status).toBe(500);
    expect(after.json().error).toEqual({ code: 'INTERNAL', message: WEBHOOK_BODY_CONSUMED });
    expect(after.json().error.message).toMatch(/Mount the Stratbox router before the body parser/);
    expect(after.text).not.toContain('Invalid webhook signature');
    const logged = logLines.find((line) => line.requestId === 'webhook-after-1');
    expect(logged).toMatchObject({ level: 'error', msg: WEBHOOK_BODY_CONSUMED });
    expect((await stratbox.billing.subscriptions.get(userId)).tier).toBe('free');

    // the very same bytes and signature, to the router mounted before the parser
    const accepted = await send(firstUrl, 'POST', '/api/billing/webhook', { headers: event.headers, body: event.payload });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.json()).toEqual({ received: true });
    expect((await stratbox.billing.subscriptions.get(userId)).tier).toBe('pro');

    const other = signedSubscriptionEvent('evt_host_split', userId);
    const viaSplit = await send(splitUrl, 'POST', '/api/billing/webhook', { headers: other.headers, body: other.payload });
    expect(viaSplit.status, viaSplit.text).toBe(200);
    // the split host's other routes still work behind its parser
    const { apiKey } = await stratbox.users.createUser('split');
    const created = await send(splitUrl, 'POST', '/api/strategies', {
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'S', source: 'export function onCandle() {}' }),
    });
    expect(created.status, created.text).toBe(201);
    // a bad signature is still a bad signature
    const forged = await send(firstUrl, 'POST', '/api/billing/webhook', {
      headers: { ...event.headers, 'stripe-signature': 't=1,v1=00' },
      body: event.payload,
    });
    expect(forged.status).toBe(400);
    expect(forged.json().error.message).toBe('Invalid webhook signature');
  });

  it('x-request-id: a sane one is echoed, a missing or insane one is generated, on every kind of answer', async () => {
    const baseUrl = await typicalHost();
    const echoed = await send(baseUrl, 'GET', '/api/strategies', { headers: { 'x-request-id': 'client.id_42-A' } });
    expect(echoed.status).toBe(401);
    expect(echoed.headers['x-request-id']).toBe('client.id_42-A');
    const generated = await send(baseUrl, 'GET', '/api/openapi.json');
    expect(generated.headers['x-request-id']).toMatch(/^[A-Za-z0-9._-]{8,128}$/);
    for (const insane of ['a'.repeat(129), 'has space', 'semi;colon', '']) {
      const answer = await send(baseUrl, 'PATCH', '/api/strategies', { headers: { 'x-request-id': insane } });
      expect(answer.status).toBe(404);
      expect(answer.headers['x-request-id']).not.toBe(insane);
      expect(answer.headers['x-request-id']).toMatch(/^[A-Za-z0-9._-]{8,128}$/);
    }
    const malformed = await send(baseUrl, 'GET', '/api/strategies/%E0%A4%A', { headers: { 'x-request-id': 'bad-path-1' } });
    expect(malformed.status).toBe(400);
    expect(malformed.headers['x-request-id']).toBe('bad-path-1');
  });

  it('liveness answers 200; readiness answers 200, then 503 once the store is closed', async () => {
    const own = createStratbox({ store: createMemoryStore(), logger: createJsonLogger({ write: () => {} }) });
    const health = createHealthHandlers(own, { timeoutMs: 5_000 });
    const app = express();
    app.get('/livez', health.liveness);
    app.get('/readyz', health.readiness);
    const baseUrl = await serve(app);
    expect((await send(baseUrl, 'GET', '/livez')).json()).toEqual({ status: 'ok' });
    const ready = await send(baseUrl, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { store: 'ok' } });
    await own.close();
    const closed = await send(baseUrl, 'GET', '/readyz');
    expect(closed.status).toBe(503);
    expect(closed.json()).toEqual({ status: 'unavailable', checks: { store: 'failed' } });
    expect((await send(baseUrl, 'GET', '/livez')).status).toBe(200);
  });

  it("the example server: x-request-id on every response, health checks' and unknown paths' too, and in its request log line", async () => {
    const baseUrl = await serve(createApp(stratbox, { rateLimiter: false }));
    const { apiKey } = await stratbox.users.createUser('logged');
    const listed = await send(baseUrl, 'GET', '/api/strategies', { headers: { authorization: `Bearer ${apiKey}`, 'x-request-id': 'example-log-1' } });
    expect(listed.status).toBe(200);
    expect(listed.headers['x-request-id']).toBe('example-log-1');
    await expect
      .poll(() => logLines.find((line) => line.msg === 'request' && line.requestId === 'example-log-1'))
      .toMatchObject({ path: '/api/strategies', status: 200 });
    for (const path of ['/healthz', '/readyz', '/api/no-such-route']) {
      const answer = await send(baseUrl, 'GET', path);
      expect(answer.headers['x-request-id'], path).toMatch(/^[A-Za-z0-9._-]{8,128}$/);
    }
    expect((await send(baseUrl, 'GET', '/readyz')).json()).toEqual({ status: 'ready', checks: { store: 'ok' } });
    const unknown = await send(baseUrl, 'GET', '/api/no-such-route');
    expect(unknown.status).toBe(404);
    expect(unknown.json().error.code).toBe('NOT_FOUND');
  });

  it('mounted under a prefix, the OpenAPI document names it in servers', async () => {
    const app = express();
    app.use('/stratbox', createStratboxRouter(stratbox, routerOptions()));
    const baseUrl = await serve(app);
    const document = (await send(baseUrl, 'GET', '/stratbox/api/openapi.json')).json();
    expect(document.servers).toEqual([{ url: '/stratbox' }]);
    expect(Object.keys(document.paths)).toContain('/api/strategies');
    const rooted = (await send(await typicalHost(), 'GET', '/api/openapi.json')).json();
    expect(rooted.servers).toEqual([{ url: '/' }]);
    const proxied = express();
    proxied.use(createStratboxRouter(stratbox, routerOptions({ basePath: '/public/stratbox' })));
    expect((await send(await serve(proxied), 'GET', '/api/openapi.json')).json().servers).toEqual([{ url: '/public/stratbox' }]);
  });
});
