import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegramBotApi, startFakeTelegramBotApi } from '../testing/fake-telegram-bot-api.js';
import { createGuardedHttpClient } from './guarded-http.js';
import { renderMessage } from './render-message.js';
import { createTelegramSender } from './telegram-sender.js';
import { completedEvent, fillDigest, sendRequest } from './test-fixtures.js';

const token = '123456789:AAH-fake_TelegramBotToken_0123456789abc';
let fake: FakeTelegramBotApi;
beforeEach(async () => {
  fake = await startFakeTelegramBotApi({ token });
});
afterEach(async () => {
  await fake.close();
});

const http = createGuardedHttpClient({ allowHosts: '127.0.0.1', timeoutMs: 5_000 });
const target = { kind: 'telegram' as const, botToken: token, chatId: '-1001234567890' };

describe('telegram sender', () => {
  it('sends the plain-text message through sendMessage', async () => {
    const sender = createTelegramSender({ http, telegramApiBase: `${fake.url}/` });
    expect(await sender.send(sendRequest(target))).toEqual({ ok: true, statusCode: 200, error: null, retryable: false });
    expect(await sender.send(sendRequest(target, fillDigest))).toMatchObject({ ok: true });
    const [first, second] = await fake.waitForMessages(2);
    expect(first!.body).toEqual({ chat_id: '-1001234567890', text: renderMessage(completedEvent, 4096), disable_web_page_preview: true });
    expect(first!.text).toContain('Backtest bt_4fJq0cWzYb3kR9tLmN2pXa completed');
    expect(second!.text).toContain('Digest: 995 × deployment.order.filled');
  });

  it('maps a 429 to its retry_after, and 401 / 400 / 403 to failures not retried, never showing the token or path', async () => {
    const sender = createTelegramSender({ http, telegramApiBase: fake.url });
    fake.failNext({ status: 429, retryAfter: 7 }, { status: 401 }, { status: 400 }, { status: 403 }, { status: 500 });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await sender.send(sendRequest(target)));
    expect(outcomes[0]).toMatchObject({ ok: false, statusCode: 429, retryable: true, retryAfterMs: 7_000 });
    expect(outcomes[0]!.error).toBe('HTTP 429: Telegram: Too Many Requests: retry after 7');
    expect(outcomes[1]).toMatchObject({ ok: false, statusCode: 401, retryable: false, error: 'HTTP 401: Telegram: Unauthorized' });
    expect(outcomes[2]).toMatchObject({ ok: false, statusCode: 400, retryable: false, error: 'HTTP 400: Telegram: Bad Request: chat not found' });
    expect(outcomes[3]).toMatchObject({ ok: false, statusCode: 403, retryable: false });
    expect(outcomes[4]).toMatchObject({ ok: false, statusCode: 500, retryable: true });
    expect(fake.messages).toHaveLength(0);
    for (const outcome of outcomes) {
      expect(outcome.error).not.toContain(token);
      expect(outcome.error).not.toContain('AAH-fake');
      expect(outcome.error).not.toContain('/sendMessage');
    }
  });

  it('a wrong token is a 401 from the fake, not retried, without the token', async () => {
    const wrong = '987654321:ZZZ-wrong_TelegramBotToken_99999999999';
    const outcome = await createTelegramSender({ http, telegramApiBase: fake.url }).send(sendRequest({ ...target, botToken: wrong }));
    expect(outcome).toMatchObject({ ok: false, statusCode: 401, retryable: false });
    expect(outcome.error).not.toContain(wrong);
    expect(outcome.error).not.toContain('987654321');
  });

  it('goes through the guarded client: the API base on a private address is refused without the token', async () => {
    const outcome = await createTelegramSender({ http: createGuardedHttpClient({ timeoutMs: 5_000 }), telegramApiBase: fake.url }).send(sendRequest(target));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, retryable: true });
    expect(outcome.error).toMatch(/^TARGET_REFUSED/);
    expect(outcome.error).not.toContain(token);
    expect(fake.requests).toHaveLength(0);
  });
});
