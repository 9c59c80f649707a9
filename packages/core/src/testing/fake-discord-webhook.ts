import { createServer } from 'node:http';
import { json } from './binance-double-http.js';
import { type LocalServer, listenLocally } from './listen-locally.js';
import { createRecordedList, readBody } from './recorded-requests.js';

/*
 * A local fake of Discord's execute-webhook endpoint (POST /api/webhooks/<id>/<token>): checks the
 * JSON body (content of 1 to 2000 characters, or embeds; allowed_mentions an object), answers 200
 * with the message under `?wait=true` and 204 without, and answers as Discord does on failure:
 * 429 with `retry_after` (seconds, a fraction) and `Retry-After`, 404 "Unknown Webhook".
 * Point a channel at `fake.webhookUrl` and the operator's base at `fake.webhookBase`.
 */

export interface FakeDiscordMessage {
  content: string;
  /** The whole JSON body as sent. */
  body: Record<string, unknown>;
  /** Path and query as requested. */
  path: string;
  wait: boolean;
}

export type FakeDiscordFailure = { status: 429; retryAfter: number } | { status: 401 | 404 | 500 };

export interface FakeDiscordWebhook extends LocalServer {
  /** `http://127.0.0.1:<port>/api/webhooks/` (STRATBOX_DISCORD_WEBHOOK_BASE in tests). */
  webhookBase: string;
  /** The one webhook this fake knows: `<webhookBase><id>/<token>`. */
  webhookUrl: string;
  readonly messages: readonly FakeDiscordMessage[];
  /** Every request to the webhook with a valid body, accepted or not. */
  readonly requests: readonly FakeDiscordMessage[];
  waitForMessages(count: number, timeoutMs?: number): Promise<readonly FakeDiscordMessage[]>;
  /** The next requests fail as given, in order. */
  failNext(...failures: FakeDiscordFailure[]): void;
}

export async function startFakeDiscordWebhook(options: { id?: string; token?: string } = {}): Promise<FakeDiscordWebhook> {
  const id = options.id ?? '112233445566778899';
  const token = options.token ?? 'fakeDiscordToken_abcdefghijklmnopqrstuvwxyz0123456789-ABCDEFGHIJKLMNOPQRSTUV';
  const failures: FakeDiscordFailure[] = [];
  const messages = createRecordedList<FakeDiscordMessage>('Discord messages');
  const requests = createRecordedList<FakeDiscordMessage>('Discord requests');
  const server = createServer(async (req, res) => {
    const raw = (await readBody(req)).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method !== 'POST' || url.pathname !== `/api/webhooks/${id}/${token}`) return json(res, 404, { message: 'Unknown Webhook', code: 10015 });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return json(res, 400, { message: 'Cannot send an empty message', code: 50006 });
    }
    const content = body['content'];
    if (typeof content !== 'string' || content.length === 0) return json(res, 400, { message: 'Cannot send an empty message', code: 50006 });
    if (content.length > 2000) return json(res, 400, { message: 'Invalid Form Body', code: 50035, errors: { content: 'Must be 2000 or fewer in length.' } });
    const mentions = body['allowed_mentions'];
    if (mentions !== undefined && (typeof mentions !== 'object' || mentions === null || Array.isArray(mentions))) {
      return json(res, 400, { message: 'Invalid Form Body', code: 50035 });
    }
    const wait = url.searchParams.get('wait') === 'true';
    const message: FakeDiscordMessage = { content, body, path: `${url.pathname}${url.search}`, wait };
    requests.push(message);
    const failure = failures.shift();
    if (failure?.status === 429) {
      res.setHeader('retry-after', String(Math.ceil(failure.retryAfter)));
      return json(res, 429, { message: 'You are being rate limited.', retry_after: failure.retryAfter, global: false });
    }
    if (failure?.status === 404) return json(res, 404, { message: 'Unknown Webhook', code: 10015 });
    if (failure?.status === 401) return json(res, 401, { message: '401: Unauthorized', code: 0 });
    if (failure?.status === 500) return json(res, 500, { message: 'Internal Server Error', code: 0 });
    messages.push(message);
    if (!wait) {
      res.writeHead(204);
      return res.end();
    }
    json(res, 200, { id: String(messages.items.length), type: 0, content, channel_id: '1', webhook_id: id });
  });
  const local = await listenLocally(server);
  const webhookBase = `${local.url}/api/webhooks/`;
  return {
    ...local,
    webhookBase,
    webhookUrl: `${webhookBase}${id}/${token}`,
    messages: messages.items,
    requests: requests.items,
    waitForMessages: (count, timeoutMs) => messages.waitFor(count, timeoutMs),
    failNext: (...more) => void failures.push(...more),
  };
}
