import { afterEach, describe, expect, it } from 'vitest';
import { createStratbox, type Stratbox, type StratboxConfig } from '../create-stratbox.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { startWebhookReceiver, webhookSignatureProblem, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { startFakeTelegramBotApi } from '../testing/fake-telegram-bot-api.js';
import { startFakeDiscordWebhook } from '../testing/fake-discord-webhook.js';
import { StratboxError } from '../errors/stratbox-error.js';
import { recordNotificationEvent } from './record-event.js';
import { createSilentLogger } from '../ports/logger.js';

/*
 * The notification path end to end inside one Stratbox: the outbox, the dispatcher, the delivery
 * loop, the guarded HTTP client and the senders, against real local receivers over HTTP.
 */

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function start(config: StratboxConfig['notifications'] = {}, extra: Partial<StratboxConfig> = {}): Promise<Stratbox> {
  const stratbox = createStratbox({
    store: createMemoryStore(),
    logger: createSilentLogger(),
    masterKey: new Uint8Array(32).fill(7),
    workerConcurrency: 0,
    optimizations: { concurrency: 0 },
    deployments: { run: false },
    notifications: { allowHosts: ['127.0.0.1'], pollIntervalMs: 20, retry: { firstDelayMs: 50, maxDelayMs: 200, giveUpAfterMs: 60_000 }, ...config },
    ...extra,
  });
  await stratbox.start();
  closers.push(() => stratbox.close());
  return stratbox;
}

async function receiver(answers: Parameters<typeof startWebhookReceiver>[0] = []): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(answers);
  closers.push(() => r.close());
  return r;
}

/** Writes an event to the outbox as the services do: in a transaction. */
function emitBacktestCompleted(stratbox: Stratbox, userId: string, backtestId = 'bt_AAAAAAAAAAAAAAAAAAAAAA') {
  return stratbox.store.transaction((tx) =>
    recordNotificationEvent(tx, {
      type: 'backtest.completed',
      userId,
      subject: { kind: 'backtest', id: backtestId },
      summary: `Backtest ${backtestId} completed: +4.20 %`,
      data: { backtestId, strategyId: 'str_AAAAAAAAAAAAAAAAAAAAAA', metrics: { totalReturn: 0.042, maxDrawdown: 0.1, sharpe: 1.2, tradeCount: 12 } },
      time: stratbox.clock.now().toISOString(),
    }),
  );
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`Condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('webhook channels', () => {
  it('delivers an event signed with the secret shown once, with the event id as idempotency key', async () => {
    const stratbox = await start();
    const hook = await receiver();
    const channel = await stratbox.notifications.create('usr_alice', { kind: 'webhook', label: 'ops', url: `${hook.url}/hooks/stratbox` });
    expect(channel.signingSecret).toMatch(/^whsec_/);
    const secret = channel.signingSecret as string;
    expect(JSON.stringify(await stratbox.notifications.get('usr_alice', channel.id))).not.toContain(secret);
    expect(JSON.stringify(await stratbox.notifications.list('usr_alice', {}))).not.toContain('/hooks/stratbox');

    const eventId = await emitBacktestCompleted(stratbox, 'usr_alice');
    const [request] = await hook.waitForRequests(1);
    expect(webhookSignatureProblem(request!, secret)).toBeNull();
    expect(request!.headers['idempotency-key']).toBe(eventId);
    expect(JSON.parse(request!.rawBody)).toMatchObject({ id: eventId, type: 'backtest.completed', userId: 'usr_alice', subject: { kind: 'backtest' } });

    const log = await until(
      () => stratbox.notifications.deliveries('usr_alice', channel.id, {}),
      (page) => page.deliveries[0]?.status === 'delivered',
    );
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]).toMatchObject({ eventId, attempts: 1, lastStatusCode: 200, lastError: null });
  });

  it('retries a receiver that answers 500 twice: three attempts, one event id, delivered', async () => {
    const stratbox = await start();
    const hook = await receiver([500, 500, 200]);
    const channel = await stratbox.notifications.create('usr_alice', { kind: 'webhook', label: 'flaky', url: hook.url });
    const eventId = await emitBacktestCompleted(stratbox, 'usr_alice');
    const requests = await hook.waitForRequests(3);
    expect(new Set(requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([eventId]));
    const log = await until(
      () => stratbox.notifications.deliveries('usr_alice', channel.id, {}),
      (page) => page.deliveries[0]?.status === 'delivered',
    );
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]).toMatchObject({ eventId, attempts: 3, lastStatusCode: 200 });
  });

  it('gives up after the retry window, pauses the channel and tells the other channels once', async () => {
    const stratbox = await start({ retry: { firstDelayMs: 20, maxDelayMs: 40, giveUpAfterMs: 300 } });
    const broken = await receiver(Array.from({ length: 100 }, () => 503));
    const other = await receiver();
    const bad = await stratbox.notifications.create('usr_alice', { kind: 'webhook', label: 'broken', url: broken.url });
    const good = await stratbox.notifications.create('usr_alice', { kind: 'webhook', label: 'good', url: other.url, events: ['channel.paused'] });
    await emitBacktestCompleted(stratbox, 'usr_alice');
    const paused = await until(
      () => stratbox.notifications.get('usr_alice', bad.id),
      (c) => c.status === 'paused',
    );
    expect(paused.pausedReason).toMatch(/failed after \d+ attempt/);
    const [told] = await other.waitForRequests(1);
    expect(JSON.parse(told!.rawBody)).toMatchObject({ type: 'channel.paused', data: { channelId: bad.id } });
    const log = await stratbox.notifications.deliveries('usr_alice', bad.id, {});
    expect(log.deliveries[0]).toMatchObject({ status: 'failed', lastStatusCode: 503 });
    expect(log.deliveries[0]!.attempts).toBeGreaterThan(1);
    // the paused channel gets nothing more until resumed
    const before = broken.requests.length;
    await emitBacktestCompleted(stratbox, 'usr_alice', 'bt_BBBBBBBBBBBBBBBBBBBBBB');
    await other.waitForRequests(1);
    await until(
      () => stratbox.notifications.events('usr_alice', {}),
      (page) => page.events.length === 3,
    );
    expect(broken.requests.length).toBe(before);
    expect((await stratbox.notifications.get('usr_alice', good.id)).status).toBe('active');
  });

  it('batches a storm of identical events into one digest per channel per minute, dropping none', async () => {
    let now = Date.parse('2026-11-28T12:00:05.000Z');
    const clock = { now: () => new Date(now) };
    const stratbox = await start({ perMinute: 5 }, { clock });
    const hook = await receiver();
    await stratbox.notifications.create('usr_alice', { kind: 'webhook', label: 'fills', url: hook.url });
    const fill = (i: number) =>
      stratbox.store.transaction((tx) =>
        recordNotificationEvent(tx, {
          type: 'deployment.order.filled',
          userId: 'usr_alice',
          subject: { kind: 'deployment', id: 'dep_AAAAAAAAAAAAAAAAAAAAAA' },
          summary: `Fill ${i}`,
          data: {
            deploymentId: 'dep_AAAAAAAAAAAAAAAAAAAAAA',
            order: { id: `ord_${i}`, symbol: 'BTC/USDT:USDT', side: 'buy', type: 'market', quantity: 1, filledQuantity: 1, averagePrice: 100, fee: 0.1 },
          },
          time: clock.now().toISOString(),
        }),
      );
    for (let i = 0; i < 1000; i++) await fill(i);
    await hook.waitForRequests(5);
    await until(
      () => stratbox.store.notificationEvents.listUndispatched(1),
      (left) => left.length === 0,
    );
    expect(hook.requests).toHaveLength(5);
    now += 60_000; // the minute ends: its digest is due
    const all = await hook.waitForRequests(6);
    const digest = JSON.parse(all[5]!.rawBody);
    expect(digest).toMatchObject({ type: 'digest', digest: { eventType: 'deployment.order.filled', count: 995 } });
    expect(hook.requests).toHaveLength(6);
    expect((await stratbox.notifications.events('usr_alice', { limit: 200 })).events).toHaveLength(200);
  });
});

describe('channel rules', () => {
  it('refuses private targets without the allow setting, and another user sees no channel', async () => {
    const stratbox = await start({ allowHosts: [] });
    for (const url of ['http://127.0.0.1:9/x', 'https://10.0.0.1/x', 'https://169.254.169.254/latest', 'https://[::1]/x', 'https://localhost/x']) {
      await expect(stratbox.notifications.create('usr_alice', { kind: 'webhook', label: 'x', url })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    const open = await start();
    const hook = await receiver();
    const channel = await open.notifications.create('usr_alice', { kind: 'webhook', label: 'mine', url: hook.url });
    const bob = 'usr_bob';
    const calls = [
      () => open.notifications.get(bob, channel.id),
      () => open.notifications.update(bob, channel.id, { label: 'stolen' }),
      () => open.notifications.test(bob, channel.id),
      () => open.notifications.deliveries(bob, channel.id, {}),
      () => open.notifications.delete(bob, channel.id),
    ];
    for (const call of calls) await expect(call()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await open.notifications.list(bob, {})).channels).toEqual([]);
    expect((await open.notifications.get('usr_alice', channel.id)).label).toBe('mine');
  });

  it('caps channels by plan', async () => {
    const stratbox = await start();
    const hook = await receiver();
    for (let i = 0; i < 3; i++) await stratbox.notifications.create('usr_alice', { kind: 'webhook', label: `c${i}`, url: hook.url });
    const refused = await stratbox.notifications.create('usr_alice', { kind: 'webhook', label: 'c4', url: hook.url }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StratboxError);
    expect(refused).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', details: { counter: 'notificationChannels', used: 3, limit: 3 } });
  });

  it('sends a test at once and logs it', async () => {
    const stratbox = await start();
    const hook = await receiver([502]);
    const channel = await stratbox.notifications.create('usr_alice', { kind: 'webhook', label: 't', url: hook.url });
    const failed = await stratbox.notifications.test('usr_alice', channel.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 502, eventType: 'notification.test' });
    const ok = await stratbox.notifications.test('usr_alice', channel.id);
    expect(ok).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200 });
    const log = await stratbox.notifications.deliveries('usr_alice', channel.id, {});
    expect(log.deliveries.map((d) => d.status)).toEqual(['delivered', 'failed']);
    expect((await stratbox.notifications.get('usr_alice', channel.id)).status).toBe('active');
  });
});

describe('Telegram and Discord', () => {
  it('sends through the Bot API and a Discord webhook at their configured bases, secrets kept out of every answer', async () => {
    const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw_';
    const telegram = await startFakeTelegramBotApi({ token });
    closers.push(() => telegram.close());
    const discord = await startFakeDiscordWebhook();
    closers.push(() => discord.close());
    const stratbox = await start({ telegramApiBase: telegram.url, discordWebhookBase: discord.webhookBase });
    const tg = await stratbox.notifications.create('usr_alice', { kind: 'telegram', label: 'tg', botToken: token, chatId: '-100123' });
    const dc = await stratbox.notifications.create('usr_alice', { kind: 'discord', label: 'dc', url: discord.webhookUrl });
    expect(dc.target).toMatch(/^discord webhook …/);
    await expect(
      stratbox.notifications.create('usr_alice', { kind: 'discord', label: 'elsewhere', url: 'https://example.com/api/webhooks/1/x' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    // under the base as text, elsewhere once the URL is resolved
    await expect(
      stratbox.notifications.create('usr_alice', { kind: 'discord', label: 'escape', url: `${discord.webhookBase}../../users/@me` }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await emitBacktestCompleted(stratbox, 'usr_alice');
    const [message] = await telegram.waitForMessages(1);
    expect(message).toMatchObject({ chatId: '-100123' });
    expect(message!.text).toContain('completed');
    const [post] = await discord.waitForMessages(1);
    expect(post!.content).toContain('completed');
    const views = JSON.stringify([
      await stratbox.notifications.list('usr_alice', {}),
      await stratbox.notifications.deliveries('usr_alice', tg.id, {}),
      await stratbox.notifications.deliveries('usr_alice', dc.id, {}),
    ]);
    expect(views).not.toContain(token);
    expect(views).not.toContain(new URL(discord.webhookUrl).pathname);
  });
});
