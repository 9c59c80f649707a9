import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSilentLogger, createStratbox, type Authenticator, type Stratbox } from '@stratbox/core';
import { WS_CLOSE_CODES } from '@stratbox/core/contract';
import { listenLocally } from '@stratbox/core/testing';
import { attachStratboxWs } from './attach-stratbox-ws.js';
import { resolveWsOptions } from './ws-options.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(server: Server): Promise<number> {
  const { port, close } = await listenLocally(server);
  cleanups.push(close);
  return port;
}

function stratboxWith(authenticate?: Authenticator): Stratbox {
  const stratbox = createStratbox({ logger: createSilentLogger(), ...(authenticate ? { authenticate } : {}) });
  cleanups.push(() => stratbox.close());
  return stratbox;
}

/** Opens a socket and collects what it gets: the handshake status if refused, messages, the close code. */
function connect(url: string, options: WebSocket.ClientOptions = {}) {
  const ws = new WebSocket(url, options);
  const messages: unknown[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  ws.on('error', () => {});
  const outcome = new Promise<{ status?: number; code?: number }>((resolve) => {
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode! }));
    ws.once('close', (code) => resolve({ code }));
  });
  const firstMessage = new Promise<unknown>((resolve) => ws.once('message', (data) => resolve(JSON.parse(data.toString()))));
  return { ws, messages, outcome, firstMessage };
}

describe('attachStratboxWs', () => {
  it("works with { noServer: true } behind the host's own upgrade routing", async () => {
    const stratbox = stratboxWith();
    const { apiKey, userId } = await stratbox.users.createUser('host');
    const realtime = attachStratboxWs({ noServer: true }, stratbox, { path: '/realtime' });
    cleanups.push(() => realtime.close());
    const server = createServer();
    server.on('upgrade', (request, socket, head) => {
      if (realtime.shouldHandle(request)) realtime.handleUpgrade(request, socket, head);
      else socket.destroy();
    });
    const port = await listen(server);
    const socket = connect(`ws://127.0.0.1:${port}/realtime?client=test`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(await socket.firstMessage).toEqual({ type: 'authenticated', userId });
    expect(realtime.stats()).toMatchObject({ sockets: 1, authenticatedSockets: 1 });
    socket.ws.close();
    expect((await socket.outcome).code).toBe(1005);
  });

  it('lets a host authenticate the upgrade by its own means (a session cookie)', async () => {
    const stratbox = stratboxWith(async (request) => (request.headers.cookie === 'session=ok' ? { userId: 'usr_CookieCookieCookie01' } : null));
    const server = createServer();
    const realtime = attachStratboxWs(server, stratbox);
    cleanups.push(() => realtime.close());
    const port = await listen(server);
    const withCookie = connect(`ws://127.0.0.1:${port}/ws`, { headers: { cookie: 'session=ok' } });
    expect(await withCookie.firstMessage).toEqual({ type: 'authenticated', userId: 'usr_CookieCookieCookie01' });
    withCookie.ws.close();
  });

  it('refuses handshakes from origins the host does not allow (403), and when the authenticator throws (500)', async () => {
    const stratbox = stratboxWith(async (request) => {
      if (request.headers.authorization === 'Bearer boom') throw new Error('database down');
      return null;
    });
    const server = createServer();
    const realtime = attachStratboxWs(server, stratbox, { verifyOrigin: (origin) => origin === 'https://app.example.com' });
    cleanups.push(() => realtime.close());
    const port = await listen(server);
    expect(await connect(`ws://127.0.0.1:${port}/ws`, { origin: 'https://evil.example.com' }).outcome).toEqual({ status: 403 });
    expect(await connect(`ws://127.0.0.1:${port}/ws`, { origin: 'https://app.example.com', headers: { authorization: 'Bearer boom' } }).outcome).toEqual({
      status: 500,
    });
    const fine = connect(`ws://127.0.0.1:${port}/ws`, { origin: 'https://app.example.com' });
    await new Promise((resolve) => fine.ws.once('open', resolve));
    fine.ws.close();
  });

  it('closes every socket with 1001 on close() and detaches from the server', async () => {
    const stratbox = stratboxWith();
    const { apiKey } = await stratbox.users.createUser('bye');
    const server = createServer();
    const realtime = attachStratboxWs(server, stratbox);
    const port = await listen(server);
    const sockets = [1, 2, 3].map(() => connect(`ws://127.0.0.1:${port}/ws`, { headers: { authorization: `Bearer ${apiKey}` } }));
    await Promise.all(sockets.map((s) => s.firstMessage));
    await realtime.close();
    for (const socket of sockets) expect((await socket.outcome).code).toBe(WS_CLOSE_CODES.GOING_AWAY);
    expect(server.listenerCount('upgrade')).toBe(0);
    expect(realtime.stats()).toMatchObject({ sockets: 0, channels: 0, subscriptions: 0 });
  });

  it('rejects options that make no sense', () => {
    expect(() => resolveWsOptions({ path: 'ws' })).toThrow(TypeError);
    expect(() => resolveWsOptions({ maxMessageBytes: 0 })).toThrow(TypeError);
    expect(() => resolveWsOptions({ maxMessageBytes: 100_000, maxPayloadBytes: 1000 })).toThrow(TypeError);
    expect(() => resolveWsOptions({ dropProgressAboveBytes: 2000, maxBufferedBytes: 1000 })).toThrow(TypeError);
    expect(resolveWsOptions({}).path).toBe('/ws');
  });
});
