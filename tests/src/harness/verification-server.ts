import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import type { ListingRecordDetail } from '@stratbox/core/contract';
import type { z } from 'zod';
import { waitFor } from './deferred.js';
import { createUserWithCli, startServerProcess, tempDataDir, type ServerProcess } from './server-process.js';

export type RecordDetail = z.infer<typeof ListingRecordDetail>;
export type ServiceUser = { userId: string; apiKey: string; client: StratboxClient };

export interface VerificationServer {
  server: ServerProcess;
  newUser(name: string): Promise<ServiceUser>;
  /** Raw `fetch` as a user: the exact bytes an endpoint answers. */
  raw(user: ServiceUser, path: string, init?: RequestInit): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/**
 * The example server as its own process (what `pnpm start` runs), on SQLite in a temp dir, with
 * its default verification settings (the loop every 60 s, woken by a new listing) and a service
 * clock `speed` times faster than real time, so a `1m` forward record gains candles within seconds.
 */
export async function startVerificationServer(speed = 60): Promise<VerificationServer> {
  const data = tempDataDir();
  const env = { DATA_DIR: data.dir, STRATBOX_CLOCK_SPEED: String(speed), STRATBOX_CLOCK_ORIGIN: String(Date.now()) };
  const server = await startServerProcess(env);
  return {
    server,
    async newUser(name) {
      const created = await createUserWithCli(name, { DATA_DIR: data.dir });
      return { ...created, client: createStratboxClient({ baseUrl: server.baseUrl, apiKey: created.apiKey }) };
    },
    async raw(user, path, init = {}) {
      const response = await fetch(server.baseUrl + path, {
        ...init,
        headers: { authorization: `Bearer ${user.apiKey}`, 'content-type': 'application/json', ...init.headers },
      });
      return { status: response.status, text: await response.text() };
    },
    async close() {
      await server.stop();
      data.remove();
    },
  };
}

/** Polls the record route until the current record is no longer pending (ready or failed), and returns the detail. */
export function waitRecordSettled(client: StratboxClient, listingId: string, timeoutMs = 60_000): Promise<RecordDetail> {
  return waitFor(
    `the record of ${listingId} to be computed`,
    async () => {
      const detail = await client.marketplace.record({ params: { id: listingId } });
      return detail.current && detail.current.status !== 'pending' ? detail : null;
    },
    timeoutMs,
    200,
  );
}
