import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscordWebhook } from '../testing/fake-discord-webhook.js';
import { startFakeTelegramBotApi } from '../testing/fake-telegram-bot-api.js';
import type { LocalServer } from '../testing/listen-locally.js';
import { startWebhookReceiver, webhookSignatureProblem } from '../testing/webhook-receiver.js';
import { createNotificationSender } from './create-notification-sender.js';
import { createGuardedHttpClient } from './guarded-http.js';
import { sendRequest } from './test-fixtures.js';

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('createNotificationSender', () => {
  it('sends each kind to its own target', async () => {
    const token = '123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const [receiver, telegram, discord] = await Promise.all([startWebhookReceiver(), startFakeTelegramBotApi({ token }), startFakeDiscordWebhook()]);
    servers.push(receiver, telegram, discord);
    const sender = createNotificationSender({ http: createGuardedHttpClient({ allowHosts: ['127.0.0.1'] }), telegramApiBase: telegram.url });
    const outcomes = await Promise.all([
      sender.send(sendRequest({ kind: 'webhook', url: receiver.url, signingSecret: 'whsec_x1y2z3' })),
      sender.send(sendRequest({ kind: 'telegram', botToken: token, chatId: '42' })),
      sender.send(sendRequest({ kind: 'discord', url: discord.webhookUrl })),
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true]);
    expect(webhookSignatureProblem(receiver.requests[0]!, 'whsec_x1y2z3')).toBeNull();
    expect(telegram.messages.map((m) => m.chatId)).toEqual(['42']);
    expect(discord.messages).toHaveLength(1);
    const unknown = await sender.send(sendRequest({ kind: 'pigeon' as never }));
    expect(unknown).toMatchObject({ ok: false, retryable: false });
  });
});
