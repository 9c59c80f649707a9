/**
 * Smoke test of a team that mounts the router in its own Express 5 app: the router first, then
 * the host's own body parser and `/api/health` route. Serves until stdin closes (the check runs the client
 * against it meanwhile); the first line on stdout is `READY <json>` with the URL and an API key.
 */
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createStratbox } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';
import { createStratboxRouter } from '@stratbox/adapter-express';

const dir = mkdtempSync(join(tmpdir(), 'stratbox-mount-'));
const store = await createKyselyStore({ dialect: 'sqlite', filename: join(dir, 'stratbox.sqlite') });
const stratbox = createStratbox({ store });
await stratbox.start();

const app = express();
app.use(createStratboxRouter(stratbox));
app.use(express.json()); // the host's own body parser, for its own routes, after the router
app.get('/api/health', (_req, res) => {
  res.json({ ok: true, from: 'host' });
});
const server = app.listen(0, '127.0.0.1');
await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const { apiKey } = await stratbox.users.createUser('bob');
const notes: string[] = [];

// The router serves its routes, with its own authentication.
const unauthenticated = await fetch(`${url}/api/strategies`);
if (unauthenticated.status !== 401) throw new Error(`GET /api/strategies without a key answered ${unauthenticated.status}, expected 401`);
const listed = await fetch(`${url}/api/strategies`, { headers: { authorization: `Bearer ${apiKey}` } });
if (listed.status !== 200) throw new Error(`GET /api/strategies answered ${listed.status}, expected 200`);

// The host's own route under /api, registered after the router.
const health = await fetch(`${url}/api/health`);
if (health.status === 200) {
  const body = (await health.json()) as { from?: string };
  if (body.from !== 'host') throw new Error(`GET /api/health answered ${JSON.stringify(body)}, not the host's route`);
} else if (health.status === 401 || health.status === 404) {
  // Known today (issue 14, router work): the router answers every /api path itself.
  notes.push(`the host's /api/health registered after the router is shadowed by it (${health.status})`);
} else {
  throw new Error(`GET /api/health answered ${health.status}`);
}

console.log(`READY ${JSON.stringify({ url, apiKey, notes })}`);

process.stdin.resume();
process.stdin.on('end', () => {
  server.close();
  server.closeAllConnections();
  void stratbox.close().finally(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
