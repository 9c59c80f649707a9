/**
 * Dashboard benchmark (issue 15): (1) the production bundle's initial JavaScript, gzipped: the
 * scripts index.html loads (its module entry and modulepreloads) before any lazy page; target
 * under 300 KB. (2) Time from navigation to a drawn results page of a backtest with about 5,760
 * equity points and 10,000 stored trades (two symbols, 1m candles, a position flipped every
 * candle), in headless Chromium (the system's, as the e2e tests use) against the example app in
 * this process (SQLite in a temp dir): from the navigation's start (performance.now() in the
 * page) until the equity chart has drawn, the candle chart's caption shows its markers and the
 * first trades row is in the table. A fresh browser context per run (cold cache, signed in via
 * sessionStorage); median of RUNS (default 7). Target: under 1 s.
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx dashboard.bench.ts
 *   --screenshot also writes docs/images/dashboard-results.png, the README's picture: the results
 *   page of a smaller run whose markers can be told apart (see dashboard-screenshot.ts).
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { attachStratboxWs } from '@stratbox/adapter-ws';
import { createSilentLogger, createStratbox } from '@stratbox/core';
import { createApp } from '@stratbox/example-server/create-app';
import { createKyselyStore } from '@stratbox/store-kysely';
import { chromium } from 'playwright-core';
import { writeResultsScreenshot } from './dashboard-screenshot.js';
import { finishedBacktest } from './finished-backtest.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DASHBOARD = join(ROOT, 'examples/dashboard');
const DIST = join(DASHBOARD, 'dist');
const RUNS = Number(process.env.RUNS ?? 7);
const SCREENSHOT = process.argv.includes('--screenshot');
const FLIP = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, c) {
  const p = ctx.position(c.symbol);
  if (!p) ctx.buy(c.symbol, { quantity: 0.01 });
  else if (p.side === 'long') ctx.sell(c.symbol, { quantity: 0.02 });
  else ctx.buy(c.symbol, { quantity: 0.02 });
}
`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function initialJs(): { files: Array<{ file: string; raw: number; gzip: number }>; raw: number; gzip: number } {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const refs = new Set<string>();
  for (const match of html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g)) refs.add(match[1]!);
  for (const match of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g)) refs.add(match[1]!);
  const files = [...refs].map((ref) => {
    const bytes = readFileSync(join(DIST, ref.replace(/^\//, '')));
    return { file: ref, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  return { files, raw: files.reduce((s, f) => s + f.raw, 0), gzip: files.reduce((s, f) => s + f.gzip, 0) };
}

async function main() {
  console.log('Building the dashboard (vite build)…');
  execFileSync(process.execPath, [join(DASHBOARD, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: DASHBOARD,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'inherit',
  });
  const bundle = initialJs();
  for (const f of bundle.files) console.log(`  ${f.file}: ${kb(f.raw)} raw, ${kb(f.gzip)} gzipped`);
  console.log(`Initial JavaScript: ${kb(bundle.raw)} raw, ${kb(bundle.gzip)} gzipped (target < 300 KB gzipped) ${bundle.gzip < 300 * 1024 ? 'OK' : 'OVER'}`);

  const dir = mkdtempSync(join(tmpdir(), 'stratbox-dashboard-bench-'));
  const store = await createKyselyStore({ dialect: 'sqlite', filename: join(dir, 'stratbox.sqlite') });
  const stratbox = createStratbox({ logger: createSilentLogger(), store });
  await stratbox.start();
  const server = createServer(createApp(stratbox, { logRequests: false, dashboardDir: DIST }));
  const realtime = attachStratboxWs(server, stratbox);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    const { userId, apiKey } = await stratbox.users.createUser('bench');
    const strategy = await stratbox.strategies.create(userId, { name: 'Flip every minute', source: FLIP });
    const detail = await finishedBacktest(stratbox, userId, {
      strategyId: strategy.id,
      symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'],
      startDate: '2025-01-01',
      endDate: '2025-01-04',
    });
    console.log(
      `Seeded backtest: ${detail.equityCurve?.length.toLocaleString('en')} equity points, ${detail.tradeCount?.toLocaleString('en')} trades (${detail.storedTradeCount?.toLocaleString('en')} stored)`,
    );

    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript((session) => window.sessionStorage.setItem('stratbox.session', session), JSON.stringify({ baseUrl, apiKey }));
      const page = await context.newPage();
      page.setDefaultTimeout(60_000);
      await page.goto(`${baseUrl}/backtests/${detail.id}`, { waitUntil: 'commit' });
      await page.locator('[data-testid="equity-chart"] canvas').first().waitFor();
      await page.locator('[data-testid="candle-chart"] figcaption').waitFor();
      await page.locator('.trades-table tbody tr').first().waitFor();
      // the next frame: what was just inserted has been painted
      const ms = await page.evaluate(() => new Promise<number>((done) => requestAnimationFrame(() => done(performance.now()))));
      times.push(ms);
      await context.close();
    }
    const m = median(times);
    console.log(
      `Navigation to drawn results page: median ${m.toFixed(0)} ms over ${RUNS} runs (${times.map((t) => t.toFixed(0)).join(', ')}) (target < 1000 ms) ${m < 1000 ? 'OK' : 'OVER'}`,
    );
    if (SCREENSHOT) {
      const shot = await writeResultsScreenshot({ stratbox, browser, baseUrl, userId, apiKey }, join(ROOT, 'docs/images/dashboard-results.png'));
      console.log(`Screenshot: ${shot.path} (${shot.width} x ${shot.height}, ${kb(shot.bytes)}; a run of ${shot.trades} trades)`);
    }
  } finally {
    await browser.close();
    await realtime.close?.();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await stratbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
