import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { type LocalServer, listenLocally } from './listen-locally.js';
import { createRecordedList, readBody } from './recorded-requests.js';

/*
 * A real local webhook receiver for tests: records every request with its headers and raw body,
 * answers as scripted ("500 twice, then 200"), and checks Stratbox's signature the way the
 * documented scheme says a receiver should (written here independently of the signer).
 */

export interface ReceivedWebhook {
  method: string;
  /** Path and query as requested. */
  path: string;
  /** Header names lower-case. */
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  rawBody: string;
  /** The status the receiver answered. */
  answeredWith: number;
}

/** One scripted answer: a status, or a status with headers and a body. */
export type ReceiverAnswer = number | { status: number; headers?: Record<string, string>; body?: string };

export interface WebhookReceiver extends LocalServer {
  /** Every request so far (answered ones included, whatever the answer). */
  readonly requests: readonly ReceivedWebhook[];
  /** Waits until `count` requests came (30 s by default). */
  waitForRequests(count: number, timeoutMs?: number): Promise<readonly ReceivedWebhook[]>;
  /** Queues answers for the next requests, in order; once they are used up the receiver answers 200. */
  script(...answers: ReceiverAnswer[]): void;
}

/** Starts a receiver on 127.0.0.1 (admit it with `allowHosts: ['127.0.0.1']`). `answers` are scripted from the first request. */
export async function startWebhookReceiver(answers: ReceiverAnswer[] = []): Promise<WebhookReceiver> {
  const queue: ReceiverAnswer[] = [...answers];
  const requests = createRecordedList<ReceivedWebhook>('webhook requests');
  const server = createServer(async (req, res) => {
    const rawBody = (await readBody(req)).toString('utf8');
    const next = queue.shift() ?? 200;
    const answer = typeof next === 'number' ? { status: next } : next;
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, answeredWith: answer.status });
    res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
    res.end(answer.body ?? (answer.status < 300 ? 'ok' : 'failed'));
  });
  const local = await listenLocally(server);
  return {
    ...local,
    requests: requests.items,
    waitForRequests: (count, timeoutMs) => requests.waitFor(count, timeoutMs),
    script: (...more) => void queue.push(...more),
  };
}

/** Why a received webhook's signature is not good, or null when it is (the scheme of docs/notifications.md). */
export function webhookSignatureProblem(
  request: Pick<ReceivedWebhook, 'headers' | 'rawBody'>,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): string | null {
  const header = request.headers['stratbox-signature'];
  if (typeof header !== 'string') return 'no Stratbox-Signature header';
  const fields = header.split(',').map((part) => part.split('=', 2) as [string, string | undefined]);
  const t = fields.find(([k]) => k === 't')?.[1];
  const signatures = fields.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (!t || !/^\d+$/.test(t)) return 'no t= timestamp';
  const expected = createHmac('sha256', secret).update(`${t}.${request.rawBody}`).digest();
  const matches = signatures.some((hex) => /^[0-9a-f]{64}$/.test(hex) && timingSafeEqual(Buffer.from(hex, 'hex'), expected));
  if (!matches) return 'no v1= signature matches';
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(t)) > (options.toleranceSeconds ?? 300)) return 'the timestamp is too old or too new';
  return null;
}
