/**
 * Notifications benchmark: one Stratbox (createStratbox on a SQLite file, default notification
 * settings: 8 sends at once, a 250 ms poll) with a webhook channel to a local receiver. Events are
 * written to the outbox as the services write them (one transaction each, distinct records so
 * flood control digests none) at 100 and at 1,000 events per second for BENCH_SECONDS each, on a
 * fresh database each, in one run. Prints deliveries per second and the p50 / p99 / max from an
 * event's time to its arrival at the receiver, and the ratios of the two rates.
 *
 *   npx -y pnpm@10 --filter @stratbox/bench notifications
 *   BENCH_SECONDS=10, BENCH_RATES=100,1000
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSilentLogger, createStratbox, recordNotificationEvent, type Stratbox } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATES = (process.env.BENCH_RATES ?? '100,1000').split(',').map(Number);
const TICK_MS = 10;

interface Result {
  rate: number;
  written: number;
  writtenPerSecond: number;
  delivered: number;
  duplicates: number;
  deliveredPerSecond: number;
  p50: number;
  p99: number;
  max: number;
}

/** A receiver that notes when each idempotency key first arrived (and how many came twice). */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      if (arrivals.has(key)) duplicates++;
      else arrivals.set(key, performance.now());
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    duplicates: () => duplicates,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

async function writeEvent(stratbox: Stratbox, userId: string, writes: Map<string, number>) {
  const backtestId = `bt_${randomBytes(16).toString('base64url').slice(0, 22)}`;
  const at = performance.now();
  const id = await stratbox.store.transaction((tx) =>
    recordNotificationEvent(tx, {
      type: 'backtest.completed',
      userId,
      subject: { kind: 'backtest', id: backtestId },
      summary: `Backtest ${backtestId} completed: +1.00 %`,
      data: { backtestId, strategyId: 'str_AAAAAAAAAAAAAAAAAAAAAA', metrics: { totalReturn: 0.01, maxDrawdown: 0.02, sharpe: 1, tradeCount: 3 } },
      time: new Date().toISOString(),
    }),
  );
  writes.set(id!, at);
}

async function measure(rate: number): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-bench-notify-'));
  const receiver = await startReceiver();
  const stratbox = createStratbox({
    store: await createKyselyStore({ dialect: 'sqlite', filename: join(dir, 'stratbox.sqlite') }),
    logger: createSilentLogger(),
    masterKey: new Uint8Array(randomBytes(32)),
    workerConcurrency: 0,
    optimizations: { concurrency: 0 },
    deployments: { run: false },
    notifications: { allowHosts: ['127.0.0.1'] },
  });
  try {
    await stratbox.start();
    const { userId } = await stratbox.users.createUser('bench');
    await stratbox.notifications.create(userId, { kind: 'webhook', label: 'bench', url: `${receiver.url}/bench`, events: ['*'], minSeverity: 'info' });

    const writes = new Map<string, number>();
    const total = rate * SECONDS;
    const start = performance.now();
    let written = 0;
    // Paced: by each tick, as many events as the rate says should exist by then.
    while (written < total) {
      const due = Math.min(total, Math.ceil(((performance.now() - start) / 1000) * rate));
      while (written < due) {
        await writeEvent(stratbox, userId, writes);
        written++;
      }
      await sleep(TICK_MS);
    }
    const writeSeconds = (performance.now() - start) / 1000;
    const deadline = performance.now() + 120_000;
    while (receiver.arrivals.size < written && performance.now() < deadline) await sleep(20);

    const latencies: number[] = [];
    let last = start;
    for (const [id, at] of writes) {
      const arrived = receiver.arrivals.get(id);
      if (arrived === undefined) continue;
      latencies.push(arrived - at);
      last = Math.max(last, arrived);
    }
    latencies.sort((a, b) => a - b);
    return {
      rate,
      written,
      writtenPerSecond: written / writeSeconds,
      delivered: latencies.length,
      duplicates: receiver.duplicates(),
      deliveredPerSecond: latencies.length / ((last - start) / 1000),
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      max: latencies.at(-1) ?? Number.NaN,
    };
  } finally {
    await stratbox.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Result[] = [];
for (const rate of RATES) {
  const result = await measure(rate);
  results.push(result);
  console.log(`${rate} events/s: done`);
}

const ms = (v: number) => `${v.toFixed(0)} ms`;
console.log(`\nNotifications: SQLite, one node, default settings (8 sends at once, 250 ms poll), ${SECONDS} s per rate\n`);
console.log(['target/s', 'written/s', 'delivered', 'dupes', 'delivered/s', 'p50', 'p99', 'max'].map((h) => h.padStart(12)).join(''));
for (const r of results) {
  console.log(
    [
      String(r.rate),
      r.writtenPerSecond.toFixed(0),
      `${r.delivered}/${r.written}`,
      String(r.duplicates),
      r.deliveredPerSecond.toFixed(0),
      ms(r.p50),
      ms(r.p99),
      ms(r.max),
    ]
      .map((c) => c.padStart(12))
      .join(''),
  );
}
if (results.length >= 2) {
  const [low, high] = [results[0]!, results.at(-1)!];
  console.log(
    `\n${high.rate} vs ${low.rate} events/s: delivered/s x${(high.deliveredPerSecond / low.deliveredPerSecond).toFixed(2)} (ideal x${(high.rate / low.rate).toFixed(0)}), p50 x${(high.p50 / low.p50).toFixed(2)}, p99 x${(high.p99 / low.p99).toFixed(2)}`,
  );
}
