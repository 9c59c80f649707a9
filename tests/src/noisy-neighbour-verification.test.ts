import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import { createSandboxPool, createSandboxStrategyRunner, type SandboxPool, type StrategyRunner } from '@stratbox/core';
import { startTestService, type TestService } from './harness/in-process.js';
import { waitFor } from './harness/deferred.js';
import { LOOP, LOOPS, runSmallBacktest, SMALL, TWO_WEEKS } from './harness/noisy-neighbour.js';

/**
 * No wait behind a stranger's run plus the platform's verification, with the default pool (issue
 * #28): the default sandbox pool (two backtest children on this machine, one run per user at a
 * time), observed but not configured, and the platform's verification of listings on. User A
 * queues ten endless loops; once one of them holds a child, a seller lists an endless loop too,
 * whose platform backtest takes the other child (A's other runs wait for A's cap). User B's
 * two-week `1h` backtest then completes within 15 s of its create while both are still running:
 * the pool starts a child for B instead of making B wait for either (process-pool.ts, background
 * jobs). A's runs are cancelled and the service closed afterwards, which stops the platform's run.
 */

/** The default runner on the default pool, counting the platform's backtests in flight (`background` runs). */
function observedRunner(pool: SandboxPool): { runner: StrategyRunner; platformRuns: () => number } {
  const real = createSandboxStrategyRunner(pool);
  let inFlight = 0;
  const runner: StrategyRunner = {
    inspect: (source, options) => real.inspect(source, options),
    checkParams: (declaration, params) => real.checkParams(declaration, params),
    runTrials: (input, trials, options) => real.runTrials(input, trials, options),
    close: () => real.close(),
    async run(input, options) {
      if (!options.background) return real.run(input, options);
      inFlight++;
      try {
        return await real.run(input, options);
      } finally {
        inFlight--;
      }
    },
  };
  return { runner, platformRuns: () => inFlight };
}

describe.runIf(process.platform === 'linux')("a noisy neighbour and the platform's verification, on the default pool", () => {
  let service: TestService;
  let pool: SandboxPool;
  let platformRuns: () => number;
  let a: StratboxClient;
  let b: StratboxClient;
  let seller: StratboxClient;
  const queued: string[] = [];

  beforeAll(async () => {
    pool = createSandboxPool(); // no option: the defaults under test
    const observed = observedRunner(pool);
    platformRuns = observed.platformRuns;
    service = await startTestService({ strategyRunner: observed.runner, verification: { enabled: true } });
    a = (await service.newUser('noisy')).client;
    b = (await service.newUser('quiet')).client;
    seller = (await service.newUser('seller')).client;
  });
  afterAll(async () => {
    await Promise.all(queued.map((id) => a.backtests.cancel({ params: { id } }).catch(() => undefined)));
    await service?.close();
  });

  it("runs another user's two-week backtest within 15 s of its create while one user's loop and a listing's platform backtest hold both children", {
    timeout: 240_000,
  }, async () => {
    const small = await b.strategies.create({ body: { name: 'small', source: SMALL } });
    const loop = await a.strategies.create({ body: { name: 'loop', source: LOOP } });
    for (let i = 0; i < LOOPS; i++) queued.push((await a.backtests.create({ body: { strategyId: loop.id, ...TWO_WEEKS } })).id);
    const first = await waitFor(
      "one of A's loops to hold a child",
      async () => {
        const running = (await a.backtests.list({ query: { status: 'running' } })).backtests;
        return running.length === 1 && pool.stats().busy === 1 ? running[0]!.id : null;
      },
      60_000,
      100,
    );

    // a listing of a loop: its two-year platform backtest takes the other child and keeps it
    const listed = await seller.strategies.create({ body: { name: 'listed loop', source: LOOP } });
    const listing = await seller.marketplace.create({ body: { strategyId: listed.id, name: 'Forever', price: 0 } });
    await waitFor("the listing's platform backtest to hold the other child", () => platformRuns() === 1 && pool.stats().busy === 2, 90_000, 100);

    const { done, waitedMs } = await runSmallBacktest(b, small.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    console.info(`B's backtest: ${waitedMs} ms from create to finish`);
    expect(waitedMs).toBeLessThan(15_000);
    // B waited for neither A's loop nor the platform's run: both still hold their children
    expect((await a.backtests.get({ params: { id: first } })).status).toBe('running');
    expect(platformRuns()).toBe(1);
    expect((await seller.marketplace.record({ params: { id: listing.id } })).current?.status).toBe('pending');
    expect((await a.backtests.list({ query: { status: 'queued' } })).backtests.length).toBeGreaterThanOrEqual(LOOPS - 2);
  });
});
