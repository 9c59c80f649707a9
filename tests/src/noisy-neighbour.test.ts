import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import { startTestService, type TestService } from './harness/in-process.js';
import { waitFor } from './harness/deferred.js';

/**
 * One user cannot stall another (issue "Fair and hardened"): user A queues ten endless loops on
 * a service with one sandbox child for backtests; user B's saves answer at once and B's small
 * backtest runs after at most one of A's runs; every one of A's runs ends in TIMEOUT and is
 * metered.
 */
const CPU_BUDGET_MS = 3_000;
const LOOP = `export const meta = { timeframe: '1h' };\nexport function onCandle() { for (;;) {} }`;
const SMALL = (n: number) => `export const meta = { timeframe: '1h' };
// save ${n}
export function onCandle(ctx, c) {
  if (ctx.indicators.sma(c.symbol, 5) > ctx.indicators.sma(c.symbol, 20) && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  else if (ctx.position(c.symbol)) ctx.close(c.symbol);
}`;
const RANGE = { symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-01-07' };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('a noisy neighbour', () => {
  let service: TestService;
  let a: StratboxClient;
  let b: StratboxClient;

  beforeAll(async () => {
    service = await startTestService({ sandbox: { size: 1, cpuTimeMs: CPU_BUDGET_MS } });
    a = (await service.newUser('noisy')).client;
    b = (await service.newUser('quiet')).client;
  });
  afterAll(() => service.close());

  it("never stalls another user's saves or backtests, and pays for every looping run", { timeout: 300_000 }, async () => {
    const loop = await a.strategies.create({ body: { name: 'loop', source: LOOP } });
    const queued = [];
    for (let i = 0; i < 10; i++) queued.push((await a.backtests.create({ body: { strategyId: loop.id, ...RANGE } })).id);
    await waitFor("one of A's loops to run", async () => (await a.backtests.list({ query: { status: 'running' } })).backtests.length > 0, 60_000);

    // B saves while A's loop holds the only backtest child
    const saves: number[] = [];
    let small = '';
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      small = (await b.strategies.create({ body: { name: `small ${i}`, source: SMALL(i) } })).id;
      saves.push(performance.now() - started);
    }
    expect(median(saves)).toBeLessThan(1_000);

    // B's backtest goes next, after at most the one loop already running
    const createdAt = performance.now();
    const mine = await b.backtests.create({ body: { strategyId: small, ...RANGE } });
    const done = await waitFor(
      "B's backtest to finish",
      async () => {
        const r = await b.backtests.get({ params: { id: mine.id } });
        return ['completed', 'failed', 'cancelled'].includes(r.status) ? r : null;
      },
      60_000,
    );
    expect(done.status).toBe('completed');
    expect(performance.now() - createdAt).toBeLessThan(15_000);
    const stillQueued = (await a.backtests.list({ query: { status: 'queued' } })).backtests.length;
    expect(stillQueued).toBeGreaterThanOrEqual(5); // B did not wait for A's queue to drain

    // every loop ends in TIMEOUT, within its budget, and is metered
    const finished = await Promise.all(
      queued.map((id) =>
        waitFor(
          `A's run ${id} to end`,
          async () => {
            const r = await a.backtests.get({ params: { id } });
            return ['queued', 'running'].includes(r.status) ? null : r;
          },
          280_000,
          250,
        ),
      ),
    );
    for (const r of finished) {
      expect(r.status).toBe('failed');
      expect(r.error?.code).toBe('TIMEOUT');
    }
    const usage = await a.billing.usage();
    expect(usage.compute.used).toBeGreaterThanOrEqual((10 * CPU_BUDGET_MS) / 1000);
  });
});
