import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type LocalServer, listenLocally } from './listen-locally.js';

/*
 * The HTTP plumbing the Binance doubles (fake-binance-usdm.ts, fake-binance-spot.ts) share: a
 * JSON answer, Binance's request signature, and a local server that hands each request to the
 * double with its whole body read.
 */

/** Answers `body` as JSON with `status`. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Whether `params.signature` is the HMAC-SHA256 of the payload before it with `secret`, as Binance checks it. */
export function signedWith(secret: string, raw: string, params: Record<string, string>): boolean {
  const payload = raw.replace(/&?signature=[0-9a-f]+$/, '');
  return params['signature'] === createHmac('sha256', secret).update(payload).digest('hex');
}

/** Starts a local server that calls `handle` with each request and its body as text. */
export function listenDouble(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<LocalServer> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => handle(req, res, body));
  });
  return listenLocally(server);
}
