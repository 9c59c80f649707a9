/**
 * HTTP benchmark: requests/s of `GET /api/strategies` (20 strategies, SQLite, API-key auth,
 * the full Express router) beside a bare Express hello-world, measured in one run on the same
 * machine, and their ratio. Target: ratio >= 0.5.
 *
 *   npx -y pnpm@10 bench        (or: cd bench && pnpm http)
 *   BENCH_SECONDS=10 to run longer.
 *   BENCH_RATE_LIMIT=off to leave the router's rate limiter out; by default every request is
 *   counted (in memory) against a limit too high to be reached, so the figure includes the
 *   counting but never a 429 (which would be measured as an error).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import express from 'express';
import { createMemoryRateLimiter, createSilentLogger, createStratbox } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';
import { createStratboxRouter } from '@stratbox/adapter-express';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RATE_LIMIT = process.env.BENCH_RATE_LIMIT !== 'off';

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function measure(url: string, headers: Record<string, string> = {}): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-bench-'));
  const store = await createKyselyStore({ dialect: 'sqlite', filename: join(dir, 'bench.sqlite') });
  const stratbox = createStratbox({ store, logger: createSilentLogger() });
  const { userId, apiKey } = await stratbox.users.createUser('bench');
  for (let i = 0; i < 20; i++) {
    await stratbox.strategies.create(userId, {
      name: `strategy ${i}`,
      description: 'SMA crossover',
      source: `export function onCandle(){ /* ${i} */ }`,
      marketType: 'LINEAR',
    });
  }
  const app = express();
  app.use(
    createStratboxRouter(stratbox, {
      rateLimiter: RATE_LIMIT && createMemoryRateLimiter({ user: { points: 1_000_000_000, durationSeconds: 3600 } }),
    }),
  );
  const stratboxServer = await listen(app);

  const hello = express();
  hello.get('/', (_req, res) => {
    res.send('Hello World!');
  });
  const helloServer = await listen(hello);

  const check = await fetch(`${stratboxServer.url}/api/strategies`, { headers: { authorization: `Bearer ${apiKey}` } });
  const listed = ((await check.json()) as { strategies: unknown[] }).strategies.length;
  if (listed !== 20) throw new Error(`expected 20 strategies, got ${listed}`);

  // warm up both, then measure alternately so that machine noise hits both alike
  await measure(helloServer.url);
  await measure(`${stratboxServer.url}/api/strategies`, { authorization: `Bearer ${apiKey}` });
  const bare = await measure(helloServer.url);
  const ours = await measure(`${stratboxServer.url}/api/strategies`, { authorization: `Bearer ${apiKey}` });

  const ratio = ours.rps / bare.rps;
  console.log(
    `HTTP benchmark (${SECONDS}s each, ${CONNECTIONS} connections, in-process autocannon, node ${process.version}, rate limiter ${RATE_LIMIT ? 'counting' : 'off'})`,
  );
  console.log(`  bare Express hello-world      ${bare.rps.toFixed(0).padStart(8)} req/s   p99 ${bare.p99} ms   errors ${bare.errors}`);
  console.log(`  GET /api/strategies (20, SQLite) ${ours.rps.toFixed(0).padStart(5)} req/s   p99 ${ours.p99} ms   errors ${ours.errors}`);
  console.log(`  ratio ${ratio.toFixed(2)}  (target >= 0.5: ${ratio >= 0.5 ? 'met' : 'NOT met'})`);

  stratboxServer.server.close();
  helloServer.server.close();
  await stratbox.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
