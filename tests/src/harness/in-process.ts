import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { createMemoryRateLimiter, createSilentLogger, createStratbox, type RateLimiter, type Stratbox, type StratboxConfig } from '@stratbox/core';
import { listenLocally } from '@stratbox/core/testing';
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

/**
 * The example service in this process on a SQLite file in a temp dir, listening on a free port.
 * Its rate limits are far above what a functional test sends, unless `options.rateLimiter` says otherwise.
 * The platform's verification of listings is off unless `config.verification` is given: its
 * two-year platform backtests would share the one sandbox child with the run a test waits for
 * (the verified-listings tests run the example server with it on).
 */
export async function startTestService(config: Omit<StratboxConfig, 'store'> = {}, options: { rateLimiter?: RateLimiter | false } = {}): Promise<TestService> {
  const data = tempDataDir();
  const store = await createKyselyStore({ dialect: 'sqlite', filename: join(data.dir, 'stratbox.sqlite') });
  const stratbox = createStratbox({ logger: createSilentLogger(), verification: { enabled: false }, ...config, store });
  await stratbox.start();
  const rateLimiter =
    options.rateLimiter ?? createMemoryRateLimiter({ user: { points: 1_000_000, durationSeconds: 60 }, ip: { points: 1_000_000, durationSeconds: 60 } });
  const server = createServer(createApp(stratbox, { logRequests: false, rateLimiter }));
  const { url: baseUrl, close: closeServer } = await listenLocally(server);
  return {
    baseUrl,
    stratbox,
    server,
    async newUser(name = 'user') {
      const created = await stratbox.users.createUser(name);
      return { ...created, client: createStratboxClient({ baseUrl, apiKey: created.apiKey }) };
    },
    async close() {
      await closeServer();
      await stratbox.close();
      data.remove();
    },
  };
}
