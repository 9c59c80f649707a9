import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createSilentLogger, createStratbox, type Stratbox, type StratboxConfig } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { createApp } from '@stratbox/example-server/create-app';
import { tempDataDir } from './server-process.js';

export interface TestService {
  baseUrl: string;
  stratbox: Stratbox;
  server: Server;
  /** A new user and a client that calls as that user. */
  newUser(name?: string): Promise<{ userId: string; apiKey: string; client: StratboxClient }>;
  close(): Promise<void>;
}

/** The example service in this process on a SQLite file in a temp dir, listening on a free port. */
export async function startTestService(config: Omit<StratboxConfig, 'store'> = {}): Promise<TestService> {
  const data = tempDataDir();
  const store = await createKyselyStore({ dialect: 'sqlite', filename: join(data.dir, 'stratbox.sqlite') });
  const stratbox = createStratbox({ logger: createSilentLogger(), ...config, store });
  await stratbox.start();
  const server = createServer(createApp(stratbox, { logRequests: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    stratbox,
    server,
    async newUser(name = 'user') {
      const created = await stratbox.users.createUser(name);
      return { ...created, client: createStratboxClient({ baseUrl, apiKey: created.apiKey }) };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stratbox.close();
      data.remove();
    },
  };
}
