import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { isolatedBackends, requirePostgresAndRedis, startNode, type NodeProcess } from './harness/cluster.js';
import { createUserWithCli } from './harness/server-process.js';
import { openAuthedSocket } from './harness/ws-raw-client.js';

/**
 * Many processes of the example server on one machine, sharing PostgreSQL (a schema of their
 * own) and Redis (a key prefix of their own): 2 API nodes, 2 worker nodes.
 */
const available = await requirePostgresAndRedis('scale-out');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FINAL = ['completed', 'failed', 'cancelled'];
const BUSY = 'export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 300; i++) x += i; }';

type Node = NodeProcess & { baseUrl?: string };

describe.runIf(available)('scale-out: 2 API processes and 2 worker processes on PostgreSQL and Redis', () => {
  const backends = isolatedBackends('scale');
  const env = { ...backends.env, STRATBOX_QUEUE_LOCK_MS: '2000', STRATBOX_WORKER_CONCURRENCY: '2', LOG_LEVEL: 'info' };
  const nodes: Node[] = [];
  let api: [Node, Node];
  let workers: [Node, Node];
  let clients: [StratboxClient, StratboxClient];
  let apiKey: string;
  let strategyId: string;

  beforeAll(async () => {
    apiKey = (await createUserWithCli('ops', env)).apiKey; // also migrates the schema once
    const started = await Promise.all([
      startNode({ ...env, STRATBOX_ROLE: 'api' }, 'listening'),
      startNode({ ...env, STRATBOX_ROLE: 'api' }, 'listening'),
      startNode({ ...env, STRATBOX_ROLE: 'worker' }, 'worker ready'),
      startNode({ ...env, STRATBOX_ROLE: 'worker' }, 'worker ready'),
    ]);
    nodes.push(...started);
    api = [started[0], started[1]];
    workers = [started[2], started[3]];
    clients = [createStratboxClient({ baseUrl: api[0].baseUrl!, apiKey }), createStratboxClient({ baseUrl: api[1].baseUrl!, apiKey })];
    strategyId = (await clients[0].strategies.create({ body: { name: 'busy', source: BUSY } })).id;
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(nodes.map((n) => n.stop('SIGKILL')));
    await backends.remove();
  });

  async function waitAllFinal(ids: string[], timeoutMs: number, client: StratboxClient = clients[0]) {
    const end = Date.now() + timeoutMs;
    const records = new Map<string, Awaited<ReturnType<StratboxClient['backtests']['get']>>>();
    while (Date.now() < end) {
      for (const id of ids) {
        if (records.has(id)) continue;
        const r = await client.backtests.get({ params: { id } });
        if (FINAL.includes(r.status)) records.set(id, r);
      }
      if (records.size === ids.length) return records;
      await sleep(250);
    }
    const stuck = ids.filter((id) => !records.has(id));
    throw new Error(
      `${stuck.length} backtests did not finish: ${stuck.join(', ')}\nworker logs:\n${workers.map((w) => w.lines.slice(-20).join('\n') + w.stderr()).join('\n---\n')}`,
    );
  }

  const ran = (worker: Node) => worker.logs('job ran').map((e) => e.id as string);

  it("runs 40 backtests created round-robin through both API nodes on both workers; WS on API 1 sees API 2's run end", async () => {
    const socket = await openAuthedSocket(`${api[0].baseUrl!.replace('http', 'ws')}/ws`, apiKey);
    const ids: string[] = [];
    let watched = '';
    for (let i = 0; i < 40; i++) {
      const created = await clients[i % 2]!.backtests.create({
        body: { strategyId, symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-01-20', timeframe: '5m' },
      });
      ids.push(created.id);
      if (i === 39) {
        // created on API node 2, the last in line: watched on API node 1 before it runs
        watched = created.id;
        socket.send({ type: 'subscribe', channel: `backtest:${watched}:progress`, id: 'watch' });
        await socket.waitFor((m) => m.type === 'subscribed' && m.id === 'watch', 5000);
      }
    }
    const stateAfterSubscribe = (await clients[1].backtests.get({ params: { id: watched } })).status;

    const records = await waitAllFinal(ids, 150_000);
    for (const r of records.values()) expect(r.status, JSON.stringify(r.error)).toBe('completed');

    // both workers ran some, together every backtest exactly once (a worker logs a job after
    // recording its result, so give the last log lines a moment to arrive)
    for (let i = 0; i < 100 && new Set([...ran(workers[0]), ...ran(workers[1])]).size < ids.length; i++) await sleep(50);
    const [first, second] = [ran(workers[0]), ran(workers[1])];
    expect(first.length).toBeGreaterThan(0);
    expect(second.length).toBeGreaterThan(0);
    expect(new Set([...first, ...second])).toEqual(new Set(ids));
    expect(workers[0].logs('job ran').every((e) => e.pid === workers[0].pid)).toBe(true);
    // the API nodes ran none
    expect(api[0].logs('job ran')).toEqual([]);
    expect(api[1].logs('job ran')).toEqual([]);

    // the final event reached API node 1 through Redis, not as a late snapshot: the run was still
    // waiting when the subscription was acknowledged, and its `running` event came through too
    const final = await socket.waitFor(
      (m) =>
        m.type === 'event' &&
        (m.data as { backtestId: string; status: string }).backtestId === watched &&
        (m.data as { status: string }).status === 'completed',
      30_000,
    );
    expect(final).toMatchObject({ channel: `backtest:${watched}:progress`, data: { backtestId: watched, status: 'completed', progress: 1 } });
    if (['queued', 'running'].includes(stateAfterSubscribe)) {
      expect(socket.received.some((m) => m.type === 'event' && (m.data as { status: string }).status === 'running')).toBe(true);
    }
    expect(stateAfterSubscribe).not.toBe('completed');
    socket.close();
  }, 200_000);

  it('a worker SIGKILLed mid-run: every backtest still ends completed or failed with a reason', async () => {
    // another user: the first test used most of the free plan's backtest allowance
    const key = (await createUserWithCli('ops2', env)).apiKey;
    const mine = [createStratboxClient({ baseUrl: api[0].baseUrl!, apiKey: key }), createStratboxClient({ baseUrl: api[1].baseUrl!, apiKey: key })] as const;
    // Busier than BUSY: each run lasts a second or more, so the victim is killed with runs in flight.
    const busy = (await mine[1].strategies.create({ body: { name: 'busy', source: BUSY.replace('i < 300', 'i < 1500') } })).id;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const created = await mine[i % 2]!.backtests.create({
        body: { strategyId: busy, symbols: ['ETH/USDT:USDT'], startDate: '2024-02-01', endDate: '2024-02-14', timeframe: '1m' },
      });
      ids.push(created.id);
    }
    // both workers busy (2 runs each), then one dies without a word
    for (let i = 0; i < 400; i++) {
      const page = await mine[0].backtests.list({ query: { status: 'running', limit: 50 } });
      if (page.backtests.length >= 4) break;
      await sleep(50);
    }
    const [victim, survivor] = workers;
    const victimDone = new Set(ran(victim));
    expect(await victim.stop('SIGKILL')).toBe(null);

    const records = await waitAllFinal(ids, 150_000, mine[0]);
    for (const r of records.values()) {
      expect(['completed', 'failed']).toContain(r.status);
      if (r.status === 'failed') expect(r.error?.message, JSON.stringify(r)).toBeTruthy();
    }
    // the runs the victim held were handed to the survivor by the queue's stalled-job detection
    const redelivered = survivor.logs('job ran').filter((e) => e.redelivered === true && ids.includes(e.id as string));
    expect(redelivered.length).toBeGreaterThan(0);
    expect(redelivered.every((e) => !victimDone.has(e.id as string))).toBe(true);
  }, 200_000);
});
