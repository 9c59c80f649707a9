import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import { smaCrossStrategy, waitOptimizationFinished } from './harness/optimizations.js';
import { startVerificationServer, waitRecordSettled, type ServiceUser, type VerificationServer } from './harness/verification-server.js';
import { waitFinished } from './harness/wait-backtest.js';

/*
 * Search effort over real HTTP, on the example server as its own process: two sellers list the
 * same source. Seller A first ran an optimization of 498 trials on it (whose completion queues a
 * backtest of the best parameters) and one backtest of its own: 500 runs in all. Seller B ran one
 * backtest. Both records count what their seller ran before listing, and A's Deflated Sharpe
 * Ratio (500 trials) is lower than B's (1 trial), on the same returns.
 */

const SOURCE = smaCrossStrategy();
const RANGE = { symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-01-07' };

/** Every backtest of the caller on `strategyId`, page by page. */
async function backtestsOf(client: StratboxClient, strategyId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await client.backtests.list({ query: { strategyId, limit: 200, ...(cursor ? { cursor } : {}) } });
    ids.push(...page.backtests.map((b) => b.id));
    if (!page.nextCursor) return ids;
    cursor = page.nextCursor;
  }
}

describe('search effort of a verified listing over HTTP', () => {
  let service: VerificationServer;
  let a: ServiceUser;
  let b: ServiceUser;

  beforeAll(async () => {
    service = await startVerificationServer(1);
    [a, b] = await Promise.all([service.newUser('searcher'), service.newUser('one-shot')]);
  }, 90_000);
  afterAll(() => service?.close());

  it("counts the seller's backtests and optimization trials before listing, and deflates the Sharpe ratio of the searched one", {
    timeout: 600_000,
  }, async () => {
    const strategyA = (await a.client.strategies.create({ body: { name: 'Crossover', source: SOURCE, marketType: 'LINEAR' } })).id;
    const strategyB = (await b.client.strategies.create({ body: { name: 'Crossover', source: SOURCE, marketType: 'LINEAR' } })).id;

    // A: one optimization of 6 x 83 = 498 trials, then one backtest.
    const optimization = await a.client.optimizations.create({
      body: { strategyId: strategyA, ...RANGE, searchSpace: { fast: { min: 2, max: 7, step: 1 }, slow: { min: 5, max: 87, step: 1 } } },
    });
    expect(optimization.trialsTotal).toBe(498);
    const finished = await waitOptimizationFinished(a.client, optimization.id, 420_000);
    expect(finished.status, JSON.stringify(finished.error)).toBe('completed');
    expect(finished.trialsDone).toBe(498);
    expect(finished.best?.backtestId).toBeTruthy();
    const own = await a.client.backtests.create({ body: { strategyId: strategyA, ...RANGE } });
    expect((await waitFinished(a.client, own.id, 120_000)).status).toBe('completed');
    // what A ran: the optimization's best backtest, its own backtest, and the trials
    const backtestsA = await backtestsOf(a.client, strategyA);
    expect(backtestsA.sort()).toEqual([finished.best!.backtestId!, own.id].sort());

    // B: one backtest.
    const single = await b.client.backtests.create({ body: { strategyId: strategyB, ...RANGE } });
    expect((await waitFinished(b.client, single.id, 120_000)).status).toBe('completed');

    const listingA = await a.client.marketplace.create({ body: { strategyId: strategyA, name: 'Searched', price: 0 } });
    const listingB = await b.client.marketplace.create({ body: { strategyId: strategyB, name: 'Once', price: 0 } });
    // searching after listing is not counted
    await a.client.backtests.create({ body: { strategyId: strategyA, ...RANGE } });

    const [recordA, recordB] = await Promise.all([waitRecordSettled(b.client, listingA.id, 120_000), waitRecordSettled(a.client, listingB.id, 120_000)]);
    const ra = recordA.current!;
    const rb = recordB.current!;
    expect(ra.status, JSON.stringify(ra.error)).toBe('ready');
    expect(rb.status, JSON.stringify(rb.error)).toBe('ready');
    expect(ra.searchEffort).toEqual({ backtests: 2, trials: 498, total: 500 });
    expect(rb.searchEffort).toEqual({ backtests: 1, trials: 0, total: 1 });

    // the same source on the same window: the same returns and PSR; the DSR deflates A's for its 500 trials
    const ma = ra.backtest!.metrics;
    const mb = rb.backtest!.metrics;
    expect(ra.backtest!.start).toBe(rb.backtest!.start);
    expect(ma.totalReturn).toBeCloseTo(mb.totalReturn!, 12);
    expect(ma.psr).toBeCloseTo(mb.psr!, 12);
    expect(mb.dsr).toBeCloseTo(mb.psr!, 12);
    expect(ma.dsr).not.toBeNull();
    expect(ma.dsr!).toBeLessThan(mb.dsr!);

    // the listings carry the same figures in search
    const searched = await b.client.marketplace.search({ query: { sort: 'dsr' } });
    expect(searched.listings.map((l) => [l.id, l.record?.searchEffort, l.record?.dsr])).toEqual([
      [listingB.id, 1, mb.dsr],
      [listingA.id, 500, ma.dsr],
    ]);
  });
});
