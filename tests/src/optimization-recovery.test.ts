import { afterAll, describe, expect, it } from 'vitest';
import { createStratboxClient } from '@stratbox/client';
import { allTrials, smaCrossStrategy, waitOptimizationFinished, waitTrialsStored } from './harness/optimizations.js';
import { createUserWithCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';

const RANGE = { symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-03-31' };

describe('a server killed during an optimization', () => {
  const data = tempDataDir();
  const env = { DATA_DIR: data.dir };
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop('SIGKILL');
    data.remove();
  });

  it('resumes it after a restart: every trial stored once, and its compute is the sum of its trials', { timeout: 480_000 }, async () => {
    server = await startServerProcess(env);
    const user = await createUserWithCli('quant', env);
    let client = createStratboxClient({ baseUrl: server.baseUrl, apiKey: user.apiKey });
    // Tens of milliseconds a trial: 60 trials last several seconds, long enough to be killed mid-way.
    const strategy = await client.strategies.create({ body: { name: 'slow sma cross', source: smaCrossStrategy(1_000) } });
    const created = await client.optimizations.create({
      body: { strategyId: strategy.id, ...RANGE, searchSpace: { fast: { min: 2, max: 21, step: 1 }, slow: { values: [30, 50, 80] } } },
    });
    expect(created.trialsTotal).toBe(60);
    const before = await waitTrialsStored(client, created.id, 240_000);
    expect(before.status).toBe('running'); // not finished before the kill

    await server.stop('SIGKILL');
    server = await startServerProcess(env);
    client = createStratboxClient({ baseUrl: server.baseUrl, apiKey: user.apiKey });
    // The killed run left it unfinished, with the trials it had stored: the restarted server does the rest.
    const resumed = await client.optimizations.get({ params: { id: created.id } });
    expect(['queued', 'running']).toContain(resumed.status);
    expect(resumed.trialsDone).toBeGreaterThanOrEqual(before.trialsDone);
    expect(resumed.trialsDone).toBeLessThan(60);

    const done = await waitOptimizationFinished(client, created.id, 360_000);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.trialsDone).toBe(60);
    expect(done.trialsTotal).toBe(60);
    expect(done.best?.backtestId).toBeTruthy();
    const { trials } = await allTrials(client, created.id, { sort: 'index', limit: 50 });
    expect(trials.map((t) => t.index)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(trials.every((t) => t.status === 'completed')).toBe(true);
    // Validation none: nothing but the trials is metered on it, and no trial twice (the ones stored before the kill included).
    expect(done.computeMs).toBe(trials.reduce((sum, t) => sum + t.computeMs, 0));
  });
});
