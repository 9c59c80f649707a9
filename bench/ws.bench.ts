/**
 * WebSocket benchmark, in one run:
 *   1. memory: connected, authenticated, idle sockets the server holds per 100 MB of its memory
 *      (growth of the server process's RSS, after GC, from warm baseline to N open sockets);
 *   2. fan-out: time for one event published on the EventBus to reach 1,000 subscribed sockets
 *      (per event: until the last socket has it; p50 and p99 over many events).
 * Targets: >= 10,000 idle sockets per 100 MB; fan-out p99 < 50 ms.
 *
 * The server runs in a child process (this file, forked with WS_BENCH_ROLE=server and
 * --expose-gc) so that its memory is measured alone; the clients are plain `ws` sockets here.
 *
 *   npx -y pnpm@10 --filter @stratbox/bench ws        (or: cd bench && pnpm ws)
 *   BENCH_WS_IDLE=10000 BENCH_WS_FANOUT=1000 BENCH_WS_EVENTS=300 to change the sizes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { createSilentLogger, createStratbox, newId } from '@stratbox/core';
import { backtestProgressChannel } from '@stratbox/core/contract';
import { attachStratboxWs } from '@stratbox/adapter-ws';

const IDLE = Number(process.env.BENCH_WS_IDLE ?? 10_000);
const FANOUT = Number(process.env.BENCH_WS_FANOUT ?? 1_000);
const EVENTS = Number(process.env.BENCH_WS_EVENTS ?? 300);
const MB = 1_000_000;

/** A wall-clock time in ms with sub-ms precision, comparable across processes on one machine. */
const clock = () => performance.timeOrigin + performance.now();

type ServerRequest = { id: number; cmd: 'memory' } | { id: number; cmd: 'publish'; bars: number };
interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  sockets: number;
}

// ---------------------------------------------------------------- server (child process)
async function runServer(): Promise<void> {
  const backtestId = newId('backtest');
  const stratbox = createStratbox({
    logger: createSilentLogger(),
    channelResolvers: { backtest: async (_userId, id) => (id === backtestId ? {} : null) },
  });
  const { apiKey } = await stratbox.users.createUser('bench');
  const server = createServer((_req, res) => res.end('ok'));
  const realtime = attachStratboxWs(server, stratbox, { maxSocketsPerUser: Number.MAX_SAFE_INTEGER });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const gc = (globalThis as { gc?: () => void }).gc;
  const channel = backtestProgressChannel(backtestId);
  process.on('message', (request: ServerRequest) => {
    if (request.cmd === 'memory') {
      gc?.();
      gc?.();
      const { rss, heapUsed, external } = process.memoryUsage();
      process.send!({ id: request.id, memory: { rss, heapUsed, external, sockets: realtime.stats().sockets } satisfies Memory });
    } else {
      const publishedAt = clock();
      stratbox.events.publish(channel, { backtestId, status: 'running', progress: 0.5, processedBars: request.bars, totalBars: 1_000_000 });
      process.send!({ id: request.id, publishedAt, publishMs: clock() - publishedAt });
    }
  });
  process.send!({ ready: true, port: (server.address() as AddressInfo).port, apiKey, channel });
  process.on('disconnect', () => process.exit(0));
}

// ---------------------------------------------------------------- bench (parent process)
function ask<T>(child: ChildProcess, request: { cmd: 'memory' } | { cmd: 'publish'; bars: number }): Promise<T> {
  const id = Math.random();
  return new Promise((resolve) => {
    const onMessage = (message: { id?: number } & T) => {
      if (message.id !== id) return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.send({ ...request, id });
  });
}

/** Opens `count` authenticated sockets, `parallel` handshakes at a time. */
async function openSockets(url: string, apiKey: string, count: number, parallel = 250): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  let next = 0;
  async function worker() {
    while (next < count) {
      next++;
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` }, perMessageDeflate: false });
      await new Promise<void>((resolve, reject) => {
        ws.once('message', (data) => {
          if (JSON.parse(data.toString()).type !== 'authenticated') reject(new Error(`not authenticated: ${data.toString()}`));
          else resolve();
        });
        ws.once('error', reject);
      });
      sockets.push(ws);
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker));
  return sockets;
}

async function closeAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.close();
        }),
    ),
  );
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runBench(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--expose-gc', '--conditions=@stratbox/source', '--import', 'tsx'],
    env: { ...process.env, WS_BENCH_ROLE: 'server' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ port: number; apiKey: string; channel: string }>((resolve) => {
    child.once('message', (message) => resolve(message as { port: number; apiKey: string; channel: string }));
  });
  const url = `ws://127.0.0.1:${ready.port}/ws`;

  // warm up the code paths, then take the baseline
  await closeAll(await openSockets(url, ready.apiKey, 500));
  await sleep(500);
  const before = (await ask<{ memory: Memory }>(child, { cmd: 'memory' })).memory;

  // 1. idle sockets
  const started = Date.now();
  const sockets = await openSockets(url, ready.apiKey, IDLE);
  const openSeconds = (Date.now() - started) / 1000;
  await sleep(1000);
  const after = (await ask<{ memory: Memory }>(child, { cmd: 'memory' })).memory;
  if (after.sockets !== IDLE) throw new Error(`server holds ${after.sockets} sockets, expected ${IDLE}`);
  const perSocket = (after.rss - before.rss) / IDLE;
  const heapPerSocket = (after.heapUsed + after.external - before.heapUsed - before.external) / IDLE;
  const per100MB = Math.floor((100 * MB) / perSocket);

  // 2. fan-out to FANOUT of those sockets, subscribed to one channel
  const subscribers = sockets.slice(0, Math.min(FANOUT, sockets.length));
  await Promise.all(
    subscribers.map(
      (ws, i) =>
        new Promise<void>((resolve, reject) => {
          ws.once('message', (data) => {
            const answer = JSON.parse(data.toString()) as { type: string };
            if (answer.type === 'subscribed') resolve();
            else reject(new Error(`subscribe failed: ${data.toString()}`));
          });
          ws.send(JSON.stringify({ type: 'subscribe', channel: ready.channel, id: `b${i}` }));
        }),
    ),
  );
  let round = 0;
  let arrived = 0;
  let lastArrival = 0;
  const deliveries: number[] = [];
  let onAll: (() => void) | null = null;
  let roundArrivals: number[] = [];
  for (const ws of subscribers) {
    ws.on('message', (data) => {
      const at = clock();
      const event = JSON.parse(data.toString()) as { type: string; data: { processedBars: number } };
      if (event.type !== 'event' || event.data.processedBars !== round) throw new Error(`unexpected message ${data.toString()}`);
      roundArrivals.push(at);
      lastArrival = at;
      if (++arrived === subscribers.length) onAll?.();
    });
  }
  const perEvent: number[] = [];
  /** Time the server spent in `publish` (validation, serialization, one write per socket). */
  const sendLoop: number[] = [];
  for (let i = 1; i <= EVENTS + 20; i++) {
    round = i;
    arrived = 0;
    roundArrivals = [];
    const all = new Promise<void>((resolve) => (onAll = resolve));
    const { publishedAt, publishMs } = await ask<{ publishedAt: number; publishMs: number }>(child, { cmd: 'publish', bars: i });
    await all;
    if (i > 20) {
      // the first 20 events warm up the JIT and are not counted
      perEvent.push(lastArrival - publishedAt);
      sendLoop.push(publishMs);
      for (const at of roundArrivals) deliveries.push(at - publishedAt);
    }
    await sleep(5);
  }
  perEvent.sort((a, b) => a - b);
  deliveries.sort((a, b) => a - b);
  sendLoop.sort((a, b) => a - b);

  const p50 = quantile(perEvent, 0.5);
  const p99 = quantile(perEvent, 0.99);
  console.log(`WebSocket benchmark (server in its own process, node ${process.version})`);
  console.log(`  idle sockets: ${IDLE} authenticated sockets opened in ${openSeconds.toFixed(1)} s`);
  console.log(
    `    server RSS ${(before.rss / MB).toFixed(1)} MB -> ${(after.rss / MB).toFixed(1)} MB: ${(perSocket / 1000).toFixed(2)} kB per socket (JS heap + external: ${(heapPerSocket / 1000).toFixed(2)} kB)`,
  );
  console.log(`    => ${per100MB.toLocaleString('en-US')} idle sockets per 100 MB  (target >= 10,000: ${per100MB >= 10_000 ? 'met' : 'NOT met'})`);
  console.log(`  fan-out: one event to ${subscribers.length} subscribed sockets (of ${IDLE} open), ${EVENTS} events`);
  console.log(
    `    until the last socket has it: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${perEvent.at(-1)!.toFixed(2)} ms  (target p99 < 50 ms: ${p99 < 50 ? 'met' : 'NOT met'})`,
  );
  console.log(`    per delivery: p50 ${quantile(deliveries, 0.5).toFixed(2)} ms, p99 ${quantile(deliveries, 0.99).toFixed(2)} ms`);
  console.log(
    `    of which the server's publish call (validate, serialize once, write to each socket): p50 ${quantile(sendLoop, 0.5).toFixed(2)} ms, p99 ${quantile(sendLoop, 0.99).toFixed(2)} ms`,
  );
  console.log(
    `  (clients and server share this machine's ${availableParallelism()} CPUs; load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );

  await closeAll(sockets);
  child.disconnect();
}

(process.env.WS_BENCH_ROLE === 'server' ? runServer() : runBench()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
