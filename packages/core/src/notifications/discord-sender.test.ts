import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeDiscordWebhook, startFakeDiscordWebhook } from '../testing/fake-discord-webhook.js';
import { createDiscordSender, isDiscordWebhookUrl } from './discord-sender.js';
import { createGuardedHttpClient } from './guarded-http.js';
import { sendRequest } from './test-fixtures.js';

let fake: FakeDiscordWebhook;
beforeEach(async () => {
  fake = await startFakeDiscordWebhook();
});
afterEach(async () => {
  await fake.close();
});

const http = createGuardedHttpClient({ allowHosts: '127.0.0.1', timeoutMs: 5_000 });
const sender = createDiscordSender({ http });

describe('discord sender', () => {
  it('posts the message with ?wait=true and no mentions, within 2000 characters', async () => {
    const long = sendRequest({ kind: 'discord', url: fake.webhookUrl });
    long.payload = { ...long.payload, summary: `@everyone ${'x'.repeat(490)}` };
    expect(await sender.send(long)).toEqual({ ok: true, statusCode: 200, error: null, retryable: false });
    const [message] = await fake.waitForMessages(1);
    expect(message!.wait).toBe(true);
    expect(message!.body['allowed_mentions']).toEqual({ parse: [] });
    expect(message!.content).toMatch(/^ℹ️ INFO: @everyone x+/);
    expect(message!.content.length).toBeLessThanOrEqual(2000);
  });

  it('maps a 429 to retry_after in ms (a fraction of seconds), and 404 / 401 to failures not retried, without the URL', async () => {
    fake.failNext({ status: 429, retryAfter: 1.25 }, { status: 404 }, { status: 401 }, { status: 500 });
    const request = sendRequest({ kind: 'discord', url: fake.webhookUrl });
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await sender.send(request));
    expect(outcomes[0]).toMatchObject({ ok: false, statusCode: 429, retryable: true, retryAfterMs: 1_250 });
    expect(outcomes[0]!.error).toBe('HTTP 429: Discord: You are being rate limited.');
    expect(outcomes[1]).toMatchObject({ ok: false, statusCode: 404, retryable: false, error: 'HTTP 404: Discord: Unknown Webhook' });
    expect(outcomes[2]).toMatchObject({ ok: false, statusCode: 401, retryable: false });
    expect(outcomes[3]).toMatchObject({ ok: false, statusCode: 500, retryable: true });
    const { pathname } = new URL(fake.webhookUrl);
    const [, , , id, token] = pathname.split('/');
    for (const outcome of outcomes) {
      for (const secret of [fake.webhookUrl, pathname, id!, token!]) expect(outcome.error).not.toContain(secret);
    }
  });

  it('a deleted webhook (another token) answers 404, not retried', async () => {
    const outcome = await sender.send(sendRequest({ kind: 'discord', url: `${fake.webhookBase}112233445566778899/deletedToken_abcdefghijklmnop` }));
    expect(outcome).toMatchObject({ ok: false, statusCode: 404, retryable: false });
    expect(outcome.error).not.toContain('deletedToken');
  });
});

describe('isDiscordWebhookUrl', () => {
  it('takes webhook URLs under the base and nothing else', () => {
    const base = 'https://discord.com/api/webhooks/';
    expect(isDiscordWebhookUrl('https://discord.com/api/webhooks/1234567890/abc_DEF-123', base)).toBe(true);
    expect(isDiscordWebhookUrl('https://discord.com/api/webhooks/1234567890/abc_DEF-123?thread_id=5')).toBe(true);
    for (const url of [
      'https://discord.com/api/webhooks/',
      'https://discord.com/api/webhooks/1234567890',
      'https://discord.com/api/webhooks/abc/def',
      'https://discord.com/api/webhooks/1/../../../users/@me',
      'https://discord.com.evil.example/api/webhooks/1234567890/abc',
      'https://evil.example/?https://discord.com/api/webhooks/1/abc',
      'http://discord.com/api/webhooks/1234567890/abc',
      'https://user:pw@discord.com/api/webhooks/1234567890/abc',
      'not a url',
    ]) {
      expect(isDiscordWebhookUrl(url, base), url).toBe(false);
    }
    expect(isDiscordWebhookUrl(fake.webhookUrl, fake.webhookBase)).toBe(true);
    expect(isDiscordWebhookUrl(fake.webhookUrl)).toBe(false);
  });
});
