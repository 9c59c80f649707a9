import WebSocket from 'ws';
import { WsServerMessage } from '@stratbox/core/contract';

type ServerMessage = Record<string, unknown> & { type: string };

export interface RawSocket {
  ws: WebSocket;
  /** Every server message so far, parsed and checked against the contract. */
  received: ServerMessage[];
  /** The next message not yet taken by `next` (waits up to `timeoutMs`). */
  next(timeoutMs?: number): Promise<ServerMessage>;
  /** The first message, from now on or already received and not taken, that matches. */
  waitFor(match: (message: ServerMessage) => boolean, timeoutMs?: number): Promise<ServerMessage>;
  send(data: unknown): void;
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/**
 * A bare `ws` client for protocol-level tests: no reconnect, no validation on send. Every
 * message the server sends must match the contract's `WsServerMessage`, or the test fails.
 */
export async function openRawSocket(url: string, options: { token?: string; headers?: Record<string, string>; autoPong?: boolean } = {}): Promise<RawSocket> {
  const headers = { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
  const ws = new WebSocket(url, { headers, autoPong: options.autoPong ?? true });
  const received: ServerMessage[] = [];
  let taken = 0;
  const waiters = new Set<() => void>();
  ws.on('message', (data, isBinary) => {
    if (isBinary) throw new Error('the server sent a binary frame');
    const parsed = WsServerMessage.safeParse(JSON.parse(data.toString()));
    if (!parsed.success) throw new Error(`server message off contract: ${data.toString()}: ${parsed.error.message}`);
    received.push(parsed.data as ServerMessage);
    for (const wake of [...waiters]) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const wake of [...waiters]) wake();
    });
  });
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake answered ${res.statusCode}`)));
    ws.once('error', reject);
  });

  function wait(find: () => ServerMessage | undefined, timeoutMs: number, what: string): Promise<ServerMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found) {
          cleanup();
          resolve(found);
        } else if (ws.readyState === WebSocket.CLOSED) {
          cleanup();
          reject(new Error(`socket closed while waiting for ${what}; received ${JSON.stringify(received)}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${what}; received ${JSON.stringify(received)}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  }

  return {
    ws,
    received,
    next(timeoutMs = 2000) {
      return wait(() => (taken < received.length ? received[taken++] : undefined), timeoutMs, 'the next message');
    },
    waitFor(match, timeoutMs = 2000) {
      return wait(
        () => {
          const index = received.findIndex((m, i) => i >= taken && match(m));
          if (index === -1) return undefined;
          taken = index + 1;
          return received[index];
        },
        timeoutMs,
        'a matching message',
      );
    },
    send(data) {
      ws.send(typeof data === 'string' || Buffer.isBuffer(data) ? data : JSON.stringify(data));
    },
    closed,
    close() {
      ws.close();
    },
  };
}

/** Opens a socket and authenticates it with an `auth` message; resolves after `authenticated`. */
export async function openAuthedSocket(url: string, token: string): Promise<RawSocket> {
  const socket = await openRawSocket(url);
  socket.send({ type: 'auth', token });
  const first = await socket.next();
  if (first.type !== 'authenticated') throw new Error(`expected authenticated, got ${JSON.stringify(first)}`);
  return socket;
}
