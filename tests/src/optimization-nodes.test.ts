import { afterAll, describe, expect, it } from 'vitest';
import { createStratboxClient } from '@stratbox/client';
import { isolatedBackends, requirePostgresAndRedis, startNode, type NodeProcess } from './harness/cluster.js';
import { waitFor } from './harness/deferred.js';
import { allTrials, FINISHED, smaCrossStrategy, waitOptimizationFinished } from './harness/optimizations.js';
import { createUserWithCli } from './harness/server-process.js';

/**
 * One optimization across worker nodes: its coordinator (the `optimization` job) enqueues its
 * trials as slice jobs (`optimization.slice`) on the shared queue (BullMQ on Redis, PostgreSQL),
 * and both worker processes run slices. The node coordinating is SIGKILLed mid-run: the other
 * takes the coordinator over (the queue's stalled-job detection) and the dead node's slices, and
 * finishes; every trial is stored once, and the optimization's compute is its trials' CPU.
 */
const available = await requirePostgresAndRedis('optimization-nodes');

/** fast 2..46 (45 values) x slow 30, 50, 80, 100: 180 trials. */
const TRIALS = 180;

describe.runIf(available)('one optimization across two worker processes on BullMQ and PostgreSQL', () => {
  const backends = isolatedBackends('optnodes');
  const env = { ...backends.env, STRATBOX_QUEUE_LOCK_MS: '2000', STRATBOX_WORKER_CONCURRENCY: '1', LOG_LEVEL: 'debug' };
  const nodes: NodeProcess[] = [];
  afterAll(async () => {
    await Promise.allSettled(nodes.map((n) => n.stop('SIGKILL')));
    await backends.remove();
  });

  it('both workers run its slices; the coordinating one SIGKILLed mid-run, the other finishes it, every trial stored and metered once', {
    timeout: 900_000,
  }, async () => {
    const { apiKey } = await createUserWithCli('quant', env); // also migrates the schema once
    const api = await startNode({ ...env, STRATBOX_ROLE: 'api' }, 'listening');
    nodes.push(api);
    const workers = await Promise.all([
      startNode({ ...env, STRATBOX_ROLE: 'worker' }, 'worker ready'),
      startNode({ ...env, STRATBOX_ROLE: 'worker' }, 'worker ready'),
    ]);
    nodes.push(...workers);
    const client = createStratboxClient({ baseUrl: api.baseUrl!, apiKey });
    const strategy = await client.strategies.create({ body: { name: 'slow sma cross', source: smaCrossStrategy(2_000) } });
    const created = await client.optimizations.create({
      body: {
        strategyId: strategy.id,
        symbols: ['BTC/USDT:USDT'],
        startDate: '2024-01-01',
        endDate: '2024-03-31',
        searchSpace: { fast: { min: 2, max: 46, step: 1 }, slow: { values: [30, 50, 80, 100] } },
      },
    });
    expect(created.trialsTotal).toBe(TRIALS);

    /** The trials a node stored (its slice commits' newly stored trials), as it logged them. */
    const storedBy = (node: NodeProcess) =>
      node
        .logs('Optimization slice stored')
        .filter((e) => e.optimizationId === created.id)
        .reduce((sum, e) => sum + Number(e.stored), 0);
    const coordinates = (node: NodeProcess) => node.logs('Optimization slice enqueued').some((e) => e.optimizationId === created.id);

    // Mid-run: both nodes stored trials, and the optimization still runs.
    const midRun = await waitFor(
      'both workers to store trials of the optimization',
      async () => {
        const o = await client.optimizations.get({ params: { id: created.id } });
        if (FINISHED.includes(o.status)) return o;
        return storedBy(workers[0]) > 0 && storedBy(workers[1]) > 0 ? o : null;
      },
      600_000,
      100,
    );
    expect(midRun.status, `finished before both workers stored trials: ${storedBy(workers[0])} and ${storedBy(workers[1])}`).toBe('running');
    expect(midRun.trialsDone).toBeLessThan(TRIALS);
    const victim = workers.find(coordinates);
    expect(victim, 'one worker coordinates the optimization').toBeDefined();
    const survivor = workers.find((w) => w !== victim)!;
    const storedByVictim = storedBy(victim!);
    expect(await victim!.stop('SIGKILL')).toBe(null);

    const done = await waitOptimizationFinished(client, created.id, 720_000);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.trialsDone).toBe(TRIALS);
    // The survivor took the coordinator over: the queue handed the optimization job out again (logged once its run returned).
    await waitFor(
      'the survivor to log the optimization job it was handed again',
      () => survivor.logs('job ran').some((e) => e.job === 'optimization' && e.id === created.id && e.redelivered === true),
      60_000,
    );
    expect(coordinates(survivor)).toBe(true);
    // Each worker ran some of its trials; no trial stored twice by the two.
    expect(storedByVictim).toBeGreaterThan(0);
    expect(storedBy(survivor)).toBeGreaterThan(0);
    expect(storedBy(victim!) + storedBy(survivor)).toBeLessThanOrEqual(TRIALS);

    const { trials } = await allTrials(client, created.id, { sort: 'index', limit: 100 });
    expect(trials.map((t) => t.index)).toEqual(Array.from({ length: TRIALS }, (_, i) => i));
    // Validation none: the optimization meters its trials and nothing else, each once.
    expect(done.computeMs).toBe(trials.reduce((sum, t) => sum + t.computeMs, 0));
  });
});
