import { afterAll, describe, expect, it } from 'vitest';
import { createStratboxClient } from '@stratbox/client';
import { isolatedBackends, requirePostgresAndRedis, startNode, type NodeProcess } from './harness/cluster.js';
import { allTrials, smaCrossStrategy, waitOptimizationFinished, waitTrialsStored } from './harness/optimizations.js';
import { createUserWithCli } from './harness/server-process.js';
import { openAuthedSocket } from './harness/ws-raw-client.js';

/**
 * An optimization on the shared queue (BullMQ on Redis, PostgreSQL): created on an API node, run
 * by a worker node, its progress relayed to the API node's WebSocket through Redis; the worker
 * SIGKILLed mid-way, another worker node takes the job over (the queue's stalled-job detection)
 * and finishes it without redoing or recounting a stored trial.
 */
const available = await requirePostgresAndRedis('optimization-scale-out');

describe.runIf(available)('optimizations across worker processes on BullMQ and PostgreSQL', () => {
  const backends = isolatedBackends('opt');
  const env = { ...backends.env, STRATBOX_QUEUE_LOCK_MS: '2000', STRATBOX_WORKER_CONCURRENCY: '1', LOG_LEVEL: 'info' };
  const nodes: NodeProcess[] = [];
  afterAll(async () => {
    await Promise.allSettled(nodes.map((n) => n.stop('SIGKILL')));
    await backends.remove();
  });

  it('a worker killed mid-optimization: another worker finishes it, every trial stored and metered once', { timeout: 480_000 }, async () => {
    const { apiKey } = await createUserWithCli('quant', env); // also migrates the schema once
    const api = await startNode({ ...env, STRATBOX_ROLE: 'api' }, 'listening');
    nodes.push(api);
    const victim = await startNode({ ...env, STRATBOX_ROLE: 'worker' }, 'worker ready');
    nodes.push(victim);
    const client = createStratboxClient({ baseUrl: api.baseUrl!, apiKey });
    const strategy = await client.strategies.create({ body: { name: 'slow sma cross', source: smaCrossStrategy(1_000) } });
    const created = await client.optimizations.create({
      body: {
        strategyId: strategy.id,
        symbols: ['BTC/USDT:USDT'],
        startDate: '2024-01-01',
        endDate: '2024-03-31',
        searchSpace: { fast: { min: 2, max: 21, step: 1 }, slow: { values: [30, 50, 80] } },
      },
    });
    const socket = await openAuthedSocket(`${api.baseUrl!.replace('http', 'ws')}/ws`, apiKey);
    socket.send({ type: 'subscribe', channel: `optimization:${created.id}:progress`, id: 'opt' });
    await socket.waitFor((m) => m.type === 'subscribed' && m.id === 'opt', 10_000);

    const before = await waitTrialsStored(client, created.id, 240_000);
    expect(before.status).toBe('running');
    // The worker's progress reached the API node's socket through Redis.
    await socket.waitFor((m) => m.type === 'event' && (m.data as { trialsDone: number }).trialsDone > 0, 60_000);
    expect(await victim.stop('SIGKILL')).toBe(null);

    const rescuer = await startNode({ ...env, STRATBOX_ROLE: 'worker' }, 'worker ready');
    nodes.push(rescuer);
    const done = await waitOptimizationFinished(client, created.id, 420_000);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.trialsDone).toBe(60);
    const { trials } = await allTrials(client, created.id, { sort: 'index', limit: 100 });
    expect(trials.map((t) => t.index)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    // Validation none: the optimization meters its trials and nothing else, each once.
    expect(done.computeMs).toBe(trials.reduce((sum, t) => sum + t.computeMs, 0));
    const final = await socket.waitFor((m) => m.type === 'event' && (m.data as { status: string }).status === 'completed', 60_000);
    expect(final).toMatchObject({ data: { optimizationId: created.id, trialsDone: 60, trialsTotal: 60 } });
    socket.close();
  });
});
