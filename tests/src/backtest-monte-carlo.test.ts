import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import { MONTE_CARLO_MAX_STEPS, type BacktestDetail } from '@stratbox/core/contract';
import { startTestService, type TestService } from './harness/in-process.js';
import { expectError } from './harness/client-errors.js';
import { waitFor } from './harness/deferred.js';
import { waitFinished } from './harness/wait-backtest.js';
import { FLIP_STRATEGY } from './harness/strategies.js';

/*
 * Monte Carlo on a completed backtest over real HTTP and the typed client: the per-trade returns
 * of its stored trades, shuffled or bootstrapped from a seed, answered as percentiles; the same
 * body answers the same; 404 for another user's backtest, 409 until it is completed, 400 for a
 * bad body (with the field) or for more work than the cap. The buyer of a strategy may run it on
 * their backtest of it.
 */

const SYMBOL = 'BTC/USDT:USDT';

const FLIP = FLIP_STRATEGY;

/** One trade: long from the first candle, closed on the eleventh. */
const ONE_TRADE = `
export const meta = { timeframe: '1h' };
let n = 0;
export function onCandle(ctx, c) {
  if (n === 0) ctx.buy(c.symbol, { quantity: 0.05 });
  if (n === 10) ctx.sell(c.symbol, { quantity: 0.05 });
  n++;
}
`;

/** Never trades. */
const IDLE = `
export function onCandle(ctx, c) {}
`;

/** Slow on every candle, so that a year of minutes stays queued or running for as long as the test needs. */
const SLOW = `
export function onCandle(ctx, c) {
  let x = 0;
  for (let i = 0; i < 20000; i++) x += i;
}
`;

/** Throws on the first candle. */
const THROWER = `
export function onCandle(ctx, c) { throw new Error('no'); }
`;

type User = { userId: string; apiKey: string; client: StratboxClient };

/** A completed backtest of `source` over the days given. */
async function completedRun(user: User, strategyId: string, startDate: string, endDate: string): Promise<BacktestDetail> {
  const created = await user.client.backtests.create({ body: { strategyId, symbols: [SYMBOL], startDate, endDate } });
  const done = await waitFinished(user.client, created.id);
  expect(done.status, JSON.stringify(done.error)).toBe('completed');
  return done;
}

const percentilesInOrder = (d: { p5: number; p25: number; p50: number; p75: number; p95: number }) =>
  d.p5 <= d.p25 && d.p25 <= d.p50 && d.p50 <= d.p75 && d.p75 <= d.p95;

describe('Monte Carlo on a backtest over HTTP and the client', () => {
  let service: TestService;
  let alice: User;
  let flip: string;
  let flipRun: BacktestDetail;

  beforeAll(async () => {
    service = await startTestService({ sandbox: { size: 2 } });
    alice = await service.newUser('alice');
    flip = (await alice.client.strategies.create({ body: { name: 'flip', source: FLIP } })).id;
    flipRun = await completedRun(alice, flip, '2025-01-01', '2025-01-01');
  });
  afterAll(() => service.close());

  it('a completed backtest answers the distributions over its stored trades; the same seed answers the same', async () => {
    const id = flipRun.id;
    const trades = flipRun.storedTradeCount!;
    expect(trades).toBeGreaterThan(1_000);
    const shuffled = await alice.client.backtests.monteCarlo({ params: { id }, body: { runs: 500, method: 'shuffle', seed: 7, ruinThreshold: 0.2 } });
    expect(shuffled).toMatchObject({ backtestId: id, method: 'shuffle', runs: 500, seed: 7, trades, ruinThreshold: 0.2 });
    // a shuffle reorders the trades: the final equity is the backtest's own, starting capital plus every P&L
    const pnl = await sumOfPnl(alice.client, id);
    for (const value of Object.values(shuffled.finalReturn)) expect(value).toBeCloseTo(pnl / flipRun.initialCapital, 9);
    expect(percentilesInOrder(shuffled.maxDrawdown) && percentilesInOrder(shuffled.longestDrawdown)).toBe(true);
    expect(shuffled.maxDrawdown.p5).toBeGreaterThan(0);
    expect(shuffled.maxDrawdown.p95).toBeLessThan(1);
    expect(shuffled.longestDrawdown.p95).toBeLessThanOrEqual(trades);
    expect(shuffled.probabilityOfRuin).toBeGreaterThanOrEqual(0);

    // the same body twice: the same answer, over the client and raw HTTP alike
    expect(await alice.client.backtests.monteCarlo({ params: { id }, body: { runs: 500, method: 'shuffle', seed: 7, ruinThreshold: 0.2 } })).toEqual(shuffled);
    const raw = await fetch(`${service.baseUrl}/api/backtests/${id}/monte-carlo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ seed: 7, runs: 500, ruinThreshold: 0.2 }),
    });
    expect(raw.status).toBe(200);
    expect(await raw.json()).toEqual(shuffled);

    // bootstrap: the final return varies; the same seed answers the same, another seed otherwise
    const drawn = await alice.client.backtests.monteCarlo({ params: { id }, body: { runs: 500, method: 'bootstrap', seed: 7 } });
    expect(drawn.finalReturn.p95).toBeGreaterThan(drawn.finalReturn.p5);
    expect(percentilesInOrder(drawn.finalReturn)).toBe(true);
    expect(await alice.client.backtests.monteCarlo({ params: { id }, body: { runs: 500, method: 'bootstrap', seed: 7 } })).toEqual(drawn);
    const other = await alice.client.backtests.monteCarlo({ params: { id }, body: { runs: 500, method: 'bootstrap', seed: 8 } });
    expect(other.finalReturn).not.toEqual(drawn.finalReturn);
  });

  it('the body may be left out: 1,000 shuffled runs from seed 1, ruin at half the capital lost', async () => {
    const raw = await fetch(`${service.baseUrl}/api/backtests/${flipRun.id}/monte-carlo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.apiKey}` },
    });
    expect(raw.status).toBe(200);
    const answer = await raw.json();
    expect(answer).toMatchObject({ method: 'shuffle', runs: 1_000, seed: 1, ruinThreshold: 0.5, trades: flipRun.storedTradeCount });
    expect(await alice.client.backtests.monteCarlo({ params: { id: flipRun.id }, body: {} })).toEqual(answer);
  });

  it('one trade: every run is that trade, worked out by hand from its P&L', async () => {
    const strategyId = (await alice.client.strategies.create({ body: { name: 'one trade', source: ONE_TRADE } })).id;
    const run = await completedRun(alice, strategyId, '2025-02-01', '2025-02-02');
    const [trade] = (await alice.client.backtests.trades({ params: { id: run.id } })).trades;
    expect(run.storedTradeCount).toBe(1);
    const r = trade!.pnl / run.initialCapital;
    const loss = Math.max(0, -r);
    for (const method of ['shuffle', 'bootstrap'] as const) {
      // ruin only when everything is lost: never here
      const answer = await alice.client.backtests.monteCarlo({ params: { id: run.id }, body: { runs: 20, method, ruinThreshold: 1 } });
      expect(answer.trades).toBe(1);
      for (const value of Object.values(answer.finalReturn)) expect(value).toBeCloseTo(r, 12);
      for (const value of Object.values(answer.maxDrawdown)) expect(value).toBeCloseTo(loss, 12);
      for (const value of Object.values(answer.longestDrawdown)) expect(value).toBe(r < 0 ? 1 : 0);
      expect(answer.probabilityOfRuin).toBe(0);
      if (r < 0) {
        // ruin at a loss a little smaller than this trade's: every run
        const below = await alice.client.backtests.monteCarlo({ params: { id: run.id }, body: { runs: 20, method, ruinThreshold: loss * 0.99 } });
        expect(below.probabilityOfRuin).toBe(1);
      }
    }
  });

  it('a completed backtest without trades answers zeros', async () => {
    const strategyId = (await alice.client.strategies.create({ body: { name: 'idle', source: IDLE } })).id;
    const run = await completedRun(alice, strategyId, '2025-02-01', '2025-02-01');
    const zero = { p5: 0, p25: 0, p50: 0, p75: 0, p95: 0, mean: 0 };
    for (const method of ['shuffle', 'bootstrap'] as const) {
      expect(await alice.client.backtests.monteCarlo({ params: { id: run.id }, body: { method } })).toEqual({
        backtestId: run.id,
        method,
        runs: 1_000,
        seed: 1,
        trades: 0,
        ruinThreshold: 0.5,
        finalReturn: zero,
        maxDrawdown: zero,
        longestDrawdown: zero,
        probabilityOfRuin: 0,
      });
    }
  });

  it("another user's backtest is 404, as a missing one", async () => {
    const bob = (await service.newUser('bob')).client;
    const foreign = await expectError(bob.backtests.monteCarlo({ params: { id: flipRun.id }, body: {} }), 404, 'NOT_FOUND');
    expect(foreign.message).toBe(`Backtest ${flipRun.id} not found`);
    const missingId = `bt_${'Q'.repeat(22)}`;
    const missing = await expectError(bob.backtests.monteCarlo({ params: { id: missingId }, body: {} }), 404, 'NOT_FOUND');
    expect(missing.message).toBe(`Backtest ${missingId} not found`);
  });

  it('a queued or running backtest is 409 CONFLICT, and so are failed and cancelled ones', async () => {
    const slow = (await alice.client.strategies.create({ body: { name: 'slow', source: SLOW } })).id;
    const created = await alice.client.backtests.create({
      body: { strategyId: slow, symbols: [SYMBOL], startDate: '2024-01-01', endDate: '2024-12-31', timeframe: '1m' },
    });
    const early = await expectError(alice.client.backtests.monteCarlo({ params: { id: created.id }, body: {} }), 409, 'CONFLICT');
    expect(early.message).toMatch(/is (queued|running); Monte Carlo needs a completed backtest/);
    await waitFor('the slow run to make progress', async () => (await alice.client.backtests.get({ params: { id: created.id } })).progress > 0, 60_000);
    const running = await expectError(alice.client.backtests.monteCarlo({ params: { id: created.id }, body: {} }), 409, 'CONFLICT');
    expect(running.message).toContain('is running');
    await alice.client.backtests.cancel({ params: { id: created.id } });
    const cancelled = await expectError(alice.client.backtests.monteCarlo({ params: { id: created.id }, body: {} }), 409, 'CONFLICT');
    expect(cancelled.message).toContain('is cancelled');

    const thrower = (await alice.client.strategies.create({ body: { name: 'thrower', source: THROWER } })).id;
    const failedRun = await alice.client.backtests.create({ body: { strategyId: thrower, symbols: [SYMBOL], startDate: '2025-02-01', endDate: '2025-02-01' } });
    expect((await waitFinished(alice.client, failedRun.id)).status).toBe('failed');
    await expectError(alice.client.backtests.monteCarlo({ params: { id: failedRun.id }, body: {} }), 409, 'CONFLICT');
  });

  it('a bad body is 400 VALIDATION_FAILED naming the field', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ runs: 0 }, 'body.runs'],
      [{ runs: 10_001 }, 'body.runs'],
      [{ runs: 1.5 }, 'body.runs'],
      [{ runs: '10' }, 'body.runs'],
      [{ method: 'permute' }, 'body.method'],
      [{ seed: -1 }, 'body.seed'],
      [{ seed: 2 ** 32 }, 'body.seed'],
      [{ seed: 0.5 }, 'body.seed'],
      [{ ruinThreshold: 0 }, 'body.ruinThreshold'],
      [{ ruinThreshold: 1.5 }, 'body.ruinThreshold'],
      [{ runs: 10, runz: 10 }, 'body'],
    ];
    for (const [body, path] of bad) {
      const error = await expectError(alice.client.call('backtests.monteCarlo', { params: { id: flipRun.id }, body: body as never }), 400, 'VALIDATION_FAILED');
      expect(error.details, JSON.stringify(body)).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    const unknown = await expectError(
      alice.client.call('backtests.monteCarlo', { params: { id: flipRun.id }, body: { runz: 10 } as never }),
      400,
      'VALIDATION_FAILED',
    );
    expect(JSON.stringify(unknown.details)).toContain('runz');
  });

  it('more work than the cap (runs × stored trades) is 400 naming runs, before anything runs', async () => {
    // two symbols of flipping minutes: about 2,880 trades, so 10,000 runs is over 20,000,000
    const run = await alice.client.backtests.create({
      body: { strategyId: flip, symbols: [SYMBOL, 'ETH/USDT:USDT'], startDate: '2025-01-02', endDate: '2025-01-02' },
    });
    const done = await waitFinished(alice.client, run.id);
    const stored = done.storedTradeCount!;
    expect(10_000 * stored).toBeGreaterThan(MONTE_CARLO_MAX_STEPS);
    const error = await expectError(alice.client.backtests.monteCarlo({ params: { id: run.id }, body: { runs: 10_000 } }), 400, 'VALIDATION_FAILED');
    const most = Math.floor(MONTE_CARLO_MAX_STEPS / stored);
    expect(error.details).toEqual([{ path: 'body.runs', message: expect.stringContaining(`at most ${most} runs`) }]);
    // the largest number of runs allowed answers
    expect((await alice.client.backtests.monteCarlo({ params: { id: run.id }, body: { runs: most } })).runs).toBe(most);
  });

  it('the buyer of a strategy may run Monte Carlo on their backtest of it; the seller gets 404', async () => {
    const listing = await alice.client.marketplace.create({ body: { strategyId: flip, name: 'Flip', price: 0 } });
    const carol = await service.newUser('carol');
    await carol.client.marketplace.purchase({ params: { id: listing.id }, body: {} });
    const run = await completedRun(carol, listing.id, '2025-01-01', '2025-01-01');
    const answer = await carol.client.backtests.monteCarlo({ params: { id: run.id }, body: { runs: 100 } });
    expect(answer).toMatchObject({ backtestId: run.id, trades: run.storedTradeCount, runs: 100 });
    // the buyer's run of the same strategy over the same day made the same trades as the seller's
    expect(answer).toEqual({ ...(await alice.client.backtests.monteCarlo({ params: { id: flipRun.id }, body: { runs: 100 } })), backtestId: run.id });
    await expectError(alice.client.backtests.monteCarlo({ params: { id: run.id }, body: {} }), 404, 'NOT_FOUND');
  });
});

/** The sum of the P&L of every stored trade of a backtest, read page by page. */
async function sumOfPnl(client: StratboxClient, id: string): Promise<number> {
  let sum = 0;
  let cursor: string | undefined;
  for (let i = 0; i < 1_000; i++) {
    const page = await client.backtests.trades({ params: { id }, query: { limit: 200, ...(cursor ? { cursor } : {}) } });
    for (const trade of page.trades) sum += trade.pnl;
    if (page.nextCursor === null) return sum;
    cursor = page.nextCursor;
  }
  throw new Error('paging did not end');
}
