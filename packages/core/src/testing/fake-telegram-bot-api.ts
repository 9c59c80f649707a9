import { createServer } from 'node:http';
import { json } from './binance-double-http.js';
import { type LocalServer, listenLocally } from './listen-locally.js';
import { createRecordedList, readBody } from './recorded-requests.js';

/*
 * A local fake of the Telegram Bot API's `sendMessage` (POST /bot<token>/sendMessage with a JSON
 * body), answering as Telegram does: `{ ok: true, result }`, or `{ ok: false, error_code,
 * description, parameters }`. Point a sender at it with `telegramApiBase: fake.url` (and admit
 * 127.0.0.1). It checks the token it was started with and the shape of the body.
 */

export interface FakeTelegramMessage {
  chatId: string;
  text: string;
  /** The whole JSON body as sent. */
  body: Record<string, unknown>;
  /** The request path (it holds the token). */
  path: string;
}

/** A failure to answer instead of a success. */
export type FakeTelegramFailure = { status: 429; retryAfter: number } | { status: 400 | 401 | 403 | 404 | 500; description?: string };

export interface FakeTelegramBotApi extends LocalServer {
  /** Messages accepted (answered ok), oldest first. */
  readonly messages: readonly FakeTelegramMessage[];
  /** Every sendMessage request, accepted or not. */
  readonly requests: readonly FakeTelegramMessage[];
  waitForMessages(count: number, timeoutMs?: number): Promise<readonly FakeTelegramMessage[]>;
  /** The next requests fail as given, in order. */
  failNext(...failures: FakeTelegramFailure[]): void;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad Request: chat not found',
  401: 'Unauthorized',
  403: 'Forbidden: bot was blocked by the user',
  404: 'Not Found',
  500: 'Internal Server Error',
};

export async function startFakeTelegramBotApi(options: { token: string }): Promise<FakeTelegramBotApi> {
  const failures: FakeTelegramFailure[] = [];
  const messages = createRecordedList<FakeTelegramMessage>('Telegram messages');
  const requests = createRecordedList<FakeTelegramMessage>('Telegram requests');
  let nextId = 1;
  const fail = (res: Parameters<typeof json>[0], status: number, description: string, parameters?: Record<string, unknown>) =>
    json(res, status, { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) });

  const server = createServer(async (req, res) => {
    const raw = (await readBody(req)).toString('utf8');
    const path = req.url ?? '';
    const match = /^\/bot([^/]+)\/sendMessage$/.exec(path);
    if (req.method !== 'POST' || !match) return fail(res, 404, 'Not Found');
    if (match[1] !== options.token) return fail(res, 401, 'Unauthorized');
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return fail(res, 400, 'Bad Request: expected a JSON body');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return fail(res, 400, "Bad Request: can't parse JSON object");
    }
    const chatId = body['chat_id'];
    const text = body['text'];
    if ((typeof chatId !== 'string' && typeof chatId !== 'number') || String(chatId) === '') return fail(res, 400, 'Bad Request: chat_id is empty');
    if (typeof text !== 'string' || text.trim() === '') return fail(res, 400, 'Bad Request: message text is empty');
    if (text.length > 4096) return fail(res, 400, 'Bad Request: message is too long');
    if (body['parse_mode'] !== undefined && !['HTML', 'MarkdownV2', 'Markdown'].includes(String(body['parse_mode']))) {
      return fail(res, 400, 'Bad Request: unsupported parse_mode');
    }
    const message: FakeTelegramMessage = { chatId: String(chatId), text, body, path };
    requests.push(message);
    const failure = failures.shift();
    if (failure) {
      if (failure.status === 429) return fail(res, 429, `Too Many Requests: retry after ${failure.retryAfter}`, { retry_after: failure.retryAfter });
      return fail(res, failure.status, failure.description ?? DESCRIPTIONS[failure.status] ?? 'Error');
    }
    messages.push(message);
    json(res, 200, { ok: true, result: { message_id: nextId++, chat: { id: chatId }, date: Math.floor(Date.now() / 1000), text } });
  });
  const local = await listenLocally(server);
  return {
    ...local,
    messages: messages.items,
    requests: requests.items,
    waitForMessages: (count, timeoutMs) => messages.waitFor(count, timeoutMs),
    failNext: (...more) => void failures.push(...more),
  };
}
