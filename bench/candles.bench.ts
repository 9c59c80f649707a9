/**
 * Candle page benchmark: requests/s of `GET /api/market-data/candles?...&limit=1` over one day
 * and over four years (1,992,960 one-minute candles) of synthetic candles, through the real
 * service in-process (SQLite, API-key auth, the full Express router, no rate limiter), measured
 * side by side in one run, and their ratio. A page costs its own candles, not the range's.
 * Target: four-years latency / one-day latency <= 2.
 *
 *   cd bench && pnpm candles      (or: npx -y pnpm@10 --filter @stratbox/bench candles)
 *   BENCH_SECONDS=10 to run longer; BENCH_CONNECTIONS (default 20, the concurrency).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import express from 'express';
import { createSilentLogger, createStratbox } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';
import { createStratboxRouter } from '@stratbox/adapter-express';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SYMBOL = encodeURIComponent('BTC/USDT:USDT');
const RANGES = {
  'one day   ': { startDate: '2025-10-15', endDate: '2025-10-15' },
  'four years': { startDate: '2022-01-01', endDate: '2025-10-15' },
};

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function measure(url: string, headers: Record<string, string>): Promise<{ rps: number; mean: number; p99: number; errors: number }> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  return { rps: result.requests.average, mean: result.latency.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-bench-'));
  const store = await createKyselyStore({ dialect: 'sqlite', filename: join(dir, 'bench.sqlite') });
  const stratbox = createStratbox({ store, logger: createSilentLogger() });
  const { apiKey } = await stratbox.users.createUser('bench');
  const app = express();
  app.use(createStratboxRouter(stratbox, { rateLimiter: false }));
  const { server, url } = await listen(app);
  const headers = { authorization: `Bearer ${apiKey}` };
  const urls = Object.fromEntries(
    Object.entries(RANGES).map(([name, r]) => [
      name,
      `${url}/api/market-data/candles?symbol=${SYMBOL}&timeframe=1m&startDate=${r.startDate}&endDate=${r.endDate}&limit=1`,
    ]),
  );

  for (const [name, pageUrl] of Object.entries(urls)) {
    const response = await fetch(pageUrl, { headers });
    const body = (await response.json()) as { candles: unknown[]; nextCursor: string | null };
    if (response.status !== 200 || body.candles.length !== 1 || body.nextCursor === null)
      throw new Error(`${name}: unexpected answer ${response.status} ${JSON.stringify(body)}`);
  }
  // For scale: what every four-year request cost when a page was cut from the whole range.
  const started = performance.now();
  const whole = await stratbox.marketData.getCandles({ symbol: 'BTC/USDT:USDT', timeframe: '1m', ...RANGES['four years'] });
  const wholeMs = performance.now() - started;

  // Warm up both, then measure alternately so that machine noise hits both alike.
  for (const pageUrl of Object.values(urls)) await measure(pageUrl, headers);
  const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
  for (const [name, pageUrl] of Object.entries(urls)) results[name] = await measure(pageUrl, headers);
  const day = results['one day   ']!;
  const years = results['four years']!;
  const ratio = years.mean / day.mean;

  console.log(`Candle page benchmark (${SECONDS}s each, ${CONNECTIONS} connections, in-process autocannon, node ${process.version})`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`  limit=1 over ${name} of 1m  ${r.rps.toFixed(0).padStart(7)} req/s   mean ${r.mean.toFixed(2)} ms   p99 ${r.p99} ms   errors ${r.errors}`);
  }
  console.log(`  whole four-year series (${whole.series.length} candles, what a page cost before): ${wholeMs.toFixed(0)} ms`);
  console.log(`  ratio four years / one day (mean latency) ${ratio.toFixed(2)}  (target <= 2: ${ratio <= 2 ? 'met' : 'NOT met'})`);

  server.close();
  await stratbox.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
