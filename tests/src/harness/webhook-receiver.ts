import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: its headers and raw body. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver on 127.0.0.1 (admitted by STRATBOX_NOTIFY_ALLOW_HOSTS in the tests). */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook`. */
  url: string;
  requests: ReceivedRequest[];
  /** The HTTP status it answers from now on (200 by default). */
  answer(status: number): void;
  close(): Promise<void>;
}

/** Starts a receiver that records every request and answers `answer()`'s status. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  let status = 200;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    answer: (next) => void (status = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Checks a delivery's `Stratbox-Signature` (`t=<unix s>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`)
 * the way docs/notifications.md tells a receiver to, with node:crypto alone; true when it matches
 * and is at most 5 minutes old.
 */
export function signatureMatches(request: ReceivedRequest, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const header = String(request.headers['stratbox-signature'] ?? '');
  const parts = new Map(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${request.body}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
