import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createSilentLogger, createStratbox, type Stratbox, type StratboxConfig } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';
import { attachStratboxWs, type StratboxWsOptions, type StratboxWsServer } from '@stratbox/adapter-ws';
import { createStratboxClient, type StratboxClient, type StratboxClientOptions } from '@stratbox/client';
import { createApp } from '@stratbox/example-server/create-app';
import { tempDataDir } from './server-process.js';

export interface WsTestService {
  baseUrl: string;
  wsUrl: string;
  stratbox: Stratbox;
  /** The endpoint currently attached (a new one after `restart`). */
  realtime: StratboxWsServer;
  /** A new user and a typed client (HTTP + WebSocket via the `ws` class) calling as that user. */
  newUser(name?: string, clientOptions?: Partial<StratboxClientOptions>): Promise<{ userId: string; apiKey: string; client: StratboxClient }>;
  /** Simulates a crash: every TCP connection is destroyed without a close frame and the port stops listening. */
  crash(): Promise<void>;
  /** Listens again on the same port, with a new HTTP server and a new WebSocket endpoint (same Stratbox, same event bus). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The example service's HTTP app plus the WebSocket endpoint on one port, in this process, on
 * SQLite in a temp dir. Unlike `startTestService` it can crash and restart on the same port.
 */
export async function startWsTestService(config: Omit<StratboxConfig, 'store'> = {}, wsOptions: StratboxWsOptions = {}): Promise<WsTestService> {
  const data = tempDataDir();
  const store = await createKyselyStore({ dialect: 'sqlite', filename: join(data.dir, 'stratbox.sqlite') });
  const stratbox = createStratbox({ logger: createSilentLogger(), verification: { enabled: false }, ...config, store }); // verification off unless asked for (see in-process.ts)
  await stratbox.start();
  let server: Server;
  let sockets = new Set<Socket>();
  let realtime: StratboxWsServer;
  let port = 0;

  async function listen(): Promise<void> {
    server = createServer(createApp(stratbox, { logRequests: false }));
    const tracked = new Set<Socket>();
    sockets = tracked;
    server.on('connection', (socket) => {
      tracked.add(socket);
      socket.once('close', () => tracked.delete(socket));
    });
    realtime = attachStratboxWs(server, stratbox, wsOptions);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  }
  await listen();
  const baseUrl = `http://127.0.0.1:${port}`;
  let down = false;

  const service: WsTestService = {
    baseUrl,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    stratbox,
    get realtime() {
      return realtime;
    },
    async newUser(name = 'user', clientOptions = {}) {
      const created = await stratbox.users.createUser(name);
      const client = createStratboxClient({
        baseUrl,
        apiKey: created.apiKey,
        WebSocket,
        realtime: { reconnect: { initialDelayMs: 50, maxDelayMs: 500 }, lingerMs: 50 },
        ...clientOptions,
      });
      return { ...created, client };
    },
    async crash() {
      down = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await realtime.close({ timeoutMs: 100 });
    },
    async restart() {
      await listen();
      down = false;
    },
    async close() {
      if (!down) {
        await realtime.close({ timeoutMs: 1000 });
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await stratbox.close();
      data.remove();
    },
  };
  return service;
}
