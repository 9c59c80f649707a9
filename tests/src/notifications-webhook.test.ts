import { createStratboxClient, isWebhookVerificationError, verifyWebhook, type StratboxClient } from '@stratbox/client';
import {
  startFakeDiscordWebhook,
  startFakeTelegramBotApi,
  startWebhookReceiver,
  type FakeDiscordWebhook,
  type FakeTelegramBotApi,
  type WebhookReceiver,
} from '@stratbox/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './harness/deferred.js';
import { createUserWithCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';
import { waitFinished } from './harness/wait-backtest.js';

/*
 * Notifications over real HTTP: the example server as a child process on SQLite, channels made
 * through @stratbox/client, events caused by real backtests, delivered to local receivers (a
 * webhook receiver, fakes of the Telegram Bot API and of a Discord webhook) admitted by
 * STRATBOX_NOTIFY_ALLOW_HOSTS; and a second server without that setting, which refuses them.
 */

const BOT_TOKEN = '123456789:AAHfakeTelegramBotToken_0123456789abcdef';
const QUIET = 'export function onCandle(ctx, c) {}';

type User = { userId: string; apiKey: string };

/** One request with the raw answer, so a test can look at every byte a route returns. */
async function call(baseUrl: string, apiKey: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

async function runBacktest(client: StratboxClient) {
  const strategy = await client.strategies.create({ body: { name: `quiet ${Math.random()}`, source: QUIET } });
  const created = await client.backtests.create({
    body: { strategyId: strategy.id, symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-01-03', timeframe: '1h' },
  });
  return created.id;
}

describe('notifications over HTTP, with local receivers admitted', () => {
  const data = tempDataDir();
  let telegram: FakeTelegramBotApi;
  let discord: FakeDiscordWebhook;
  let env: Record<string, string>;
  let server: ServerProcess;
  let alice: User;
  let bob: User;
  let carol: User;
  let client: StratboxClient;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    telegram = await startFakeTelegramBotApi({ token: BOT_TOKEN });
    discord = await startFakeDiscordWebhook();
    env = {
      DATA_DIR: data.dir,
      STRATBOX_NOTIFY_ALLOW_HOSTS: '127.0.0.1',
      STRATBOX_NOTIFY_RETRY_MS: '200',
      STRATBOX_TELEGRAM_API_BASE: telegram.url,
      STRATBOX_DISCORD_WEBHOOK_BASE: discord.webhookBase,
    };
    alice = await createUserWithCli('alice', env); // also migrates the schema
    bob = await createUserWithCli('bob', env);
    carol = await createUserWithCli('carol', env);
    server = await startServerProcess(env);
    client = createStratboxClient({ baseUrl: server.baseUrl, apiKey: alice.apiKey });
  }, 120_000);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await Promise.allSettled([...receivers.map((r) => r.close()), telegram?.close(), discord?.close()]);
    data.remove();
  });

  async function receiver(...answers: number[]) {
    const r = await startWebhookReceiver(answers);
    receivers.push(r);
    return r;
  }

  it('delivers backtest.completed within 5 s of the run ending, signed so verifyWebhook accepts it (and refuses a wrong secret)', async () => {
    const hook = await receiver();
    const channel = await client.notifications.create({
      body: { kind: 'webhook', label: 'runs', url: `${hook.url}/hooks/runs`, events: ['backtest.completed'] },
    });
    const secret = channel.signingSecret!;
    expect(secret).toMatch(/^whsec_/);
    const arrived = hook.waitForRequests(1, 120_000).then(() => Date.now());

    const backtestId = await runBacktest(client);
    const finished = await waitFinished(client, backtestId, 120_000);
    expect(finished.status).toBe('completed');
    const arrivedAt = await arrived;
    const gapMs = arrivedAt - Date.parse(finished.finishedAt!);
    expect(gapMs).toBeLessThanOrEqual(5_000);

    const request = hook.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/runs');
    const header = request.headers['stratbox-signature'] as string;
    const payload = await verifyWebhook(request.rawBody, header, secret);
    expect(payload).toMatchObject({ type: 'backtest.completed', userId: alice.userId, subject: { kind: 'backtest', id: backtestId }, data: { backtestId } });
    expect(request.headers['idempotency-key']).toBe(payload.id);
    // no secret travels in the body
    expect(request.rawBody).not.toContain(secret);

    const wrong = await verifyWebhook(request.rawBody, header, 'whsec_not-the-secret-at-all-0123456789').catch((error: unknown) => error);
    expect(isWebhookVerificationError(wrong) && wrong.code).toBe('SIGNATURE_INVALID');
    const tampered = await verifyWebhook(request.rawBody.replace(backtestId, 'bt_BBBBBBBBBBBBBBBBBBBBBB'), header, secret).catch((e: unknown) => e);
    expect(isWebhookVerificationError(tampered) && tampered.code).toBe('SIGNATURE_INVALID');
  }, 180_000);

  it('answering 500 twice then 200: delivered, one delivery in the log with 3 attempts, one event id, the same Idempotency-Key each time', async () => {
    const hook = await receiver(500, 500);
    const channel = await client.notifications.create({
      body: { kind: 'webhook', label: 'flaky', url: `${hook.url}/flaky`, events: ['backtest.completed'] },
    });
    const backtestId = await runBacktest(client);
    expect((await waitFinished(client, backtestId, 120_000)).status).toBe('completed');
    const requests = await hook.waitForRequests(3, 60_000);
    expect(requests.map((r) => r.answeredWith)).toEqual([500, 500, 200]);

    const log = await waitFor(
      'the delivery to be recorded as delivered',
      async () => {
        const page = await client.notifications.deliveries({ params: { id: channel.id } });
        return page.deliveries.every((d) => d.status === 'delivered') && page.deliveries.length > 0 ? page : null;
      },
      30_000,
    );
    expect(log.deliveries).toHaveLength(1);
    const [delivery] = log.deliveries;
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200, eventType: 'backtest.completed', digest: false, eventCount: 1 });
    expect(delivery!.deliveredAt).not.toBeNull();
    const keys = new Set(requests.map((r) => r.headers['idempotency-key']));
    expect([...keys]).toEqual([delivery!.eventId]);
    const bodies = requests.map((r) => JSON.parse(r.rawBody) as { id: string; data: { backtestId: string } });
    expect(new Set(bodies.map((b) => b.id))).toEqual(new Set([delivery!.eventId]));
    expect(bodies[0]!.data.backtestId).toBe(backtestId);
    // the event is the one the events list shows for that run
    const events = await client.notifications.events({ query: {} });
    expect(events.events.filter((e) => e.subject.id === backtestId).map((e) => e.id)).toEqual([delivery!.eventId]);
  }, 180_000);

  it("answers 404 on every route for another user's channel, and sends nothing for them", async () => {
    const hook = await receiver();
    const channel = await client.notifications.create({ body: { kind: 'webhook', label: 'mine', url: `${hook.url}/mine` } });
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/notification-channels/${channel.id}`],
      ['PUT', `/api/notification-channels/${channel.id}`, { label: 'taken' }],
      ['POST', `/api/notification-channels/${channel.id}/test`],
      ['GET', `/api/notification-channels/${channel.id}/deliveries`],
      ['DELETE', `/api/notification-channels/${channel.id}`],
    ];
    for (const [method, path, body] of routes) {
      const answer = await call(server.baseUrl, bob.apiKey, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect((answer.json as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
    const bobs = await call(server.baseUrl, bob.apiKey, 'GET', '/api/notification-channels');
    expect(bobs.json).toMatchObject({ channels: [] });
    // untouched, and no test went out
    const still = await client.notifications.get({ params: { id: channel.id } });
    expect(still.label).toBe('mine');
    expect(hook.requests).toHaveLength(0);
    expect((await client.notifications.deliveries({ params: { id: channel.id } })).deliveries).toHaveLength(0);
  }, 60_000);

  it('never shows a secret after create: not in any response, not in the server log (webhook, Telegram, Discord)', async () => {
    const hook = await receiver();
    const discordToken = discord.webhookUrl.split('/').at(-1)!;
    const telegramSecretPart = BOT_TOKEN.split(':')[1]!;
    const api = (method: string, path: string, body?: unknown) => call(server.baseUrl, carol.apiKey, method, path, body);

    const webhook = await api('POST', '/api/notification-channels', { kind: 'webhook', label: 'hook', url: `${hook.url}/carol` });
    const bot = await api('POST', '/api/notification-channels', { kind: 'telegram', label: 'bot', botToken: BOT_TOKEN, chatId: '-100123456' });
    const disc = await api('POST', '/api/notification-channels', { kind: 'discord', label: 'disc', url: discord.webhookUrl });
    for (const created of [webhook, bot, disc]) expect(created.status, created.text).toBe(201);
    const signingSecret = webhook.json!.signingSecret as string;
    expect(signingSecret).toMatch(/^whsec_/);
    expect(bot.json!.signingSecret).toBeNull();
    expect(disc.json!.signingSecret).toBeNull();
    // create's answers carry only the webhook's own secret, once
    for (const created of [bot, disc]) {
      expect(created.text).not.toContain(telegramSecretPart);
      expect(created.text).not.toContain(discordToken);
    }
    expect(webhook.text).not.toContain(telegramSecretPart);

    const ids = [webhook, bot, disc].map((c) => c.json!.id as string);
    const answers: Array<{ route: string; text: string }> = [];
    const record = async (method: string, path: string, body?: unknown) => {
      const answer = await api(method, path, body);
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300);
      answers.push({ route: `${method} ${path}`, text: answer.text });
      return answer;
    };
    for (const id of ids) {
      const test = await record('POST', `/api/notification-channels/${id}/test`);
      expect(test.json, test.text).toMatchObject({ status: 'delivered' });
    }
    await hook.waitForRequests(1);
    await telegram.waitForMessages(1);
    await discord.waitForMessages(1);
    // the fakes got the real request shapes, with the secrets where they belong
    expect(telegram.messages[0]).toMatchObject({ chatId: '-100123456', path: `/bot${BOT_TOKEN}/sendMessage` });
    expect(discord.messages[0]!.content.length).toBeGreaterThan(0);

    await record('GET', '/api/notification-channels');
    await record('GET', '/api/notification-events');
    for (const id of ids) {
      await record('GET', `/api/notification-channels/${id}`);
      await record('PUT', `/api/notification-channels/${id}`, { label: `renamed ${id.slice(-4)}` });
      await record('GET', `/api/notification-channels/${id}/deliveries`);
    }
    await record('PUT', `/api/notification-channels/${ids[0]}`, { paused: true });
    await record('PUT', `/api/notification-channels/${ids[0]}`, { paused: false });
    await record('DELETE', `/api/notification-channels/${ids[2]}`);
    for (const { route, text } of answers) {
      expect(text, route).not.toContain(signingSecret);
      expect(text, route).not.toContain(telegramSecretPart);
      expect(text, route).not.toContain(discordToken);
    }
    const target = answers.find((a) => a.route === `GET /api/notification-channels/${ids[2]}`)!;
    expect(JSON.parse(target.text).target).toMatch(/discord webhook/);

    const log = `${server.lines.join('\n')}\n${server.stderr()}`;
    expect(log.length).toBeGreaterThan(0);
    expect(log).toContain(ids[0]); // the log does speak of these channels' requests
    expect(log).not.toContain(signingSecret);
    expect(log).not.toContain(telegramSecretPart);
    expect(log).not.toContain(discordToken);
  }, 120_000);
});

describe('notifications without STRATBOX_NOTIFY_ALLOW_HOSTS', () => {
  const data = tempDataDir();
  let server: ServerProcess;
  let user: User;

  beforeAll(async () => {
    const env = { DATA_DIR: data.dir };
    user = await createUserWithCli('dave', env);
    server = await startServerProcess(env);
  }, 120_000);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    data.remove();
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://localhost/hook',
  ])('refuses a channel pointing at %s with 400 VALIDATION_FAILED, and stores none', async (url) => {
    const answer = await call(server.baseUrl, user.apiKey, 'POST', '/api/notification-channels', { kind: 'webhook', label: 'inside', url });
    expect(answer.status, answer.text).toBe(400);
    expect((answer.json as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
    const list = await call(server.baseUrl, user.apiKey, 'GET', '/api/notification-channels');
    expect(list.json).toMatchObject({ channels: [] });
  });
});
