import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import { DETAIL_TRADES, type BacktestDetail } from '@stratbox/core/contract';
import { startTestService, type TestService } from './harness/in-process.js';
import { expectError } from './harness/client-errors.js';
import { waitFinished } from './harness/wait-backtest.js';
import { FLIP_STRATEGY } from './harness/strategies.js';

/*
 * A backtest's trades over real HTTP: a configured cap on the trades a run stores (the record
 * says when it was reached, metrics still cover every trade), every stored trade served in pages
 * by `GET /api/backtests/:id/trades` in entry order, and a detail that stays bounded.
 */

const FLIP = FLIP_STRATEGY;

type Trade = NonNullable<BacktestDetail['trades']>[number];

/** Every stored trade, page by page, and the size of each page. */
async function allTrades(client: StratboxClient, id: string, limit: number): Promise<{ trades: Trade[]; pages: number[] }> {
  const trades: Trade[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1_000; i++) {
    const page = await client.backtests.trades({ params: { id }, query: { limit, ...(cursor ? { cursor } : {}) } });
    trades.push(...page.trades);
    pages.push(page.trades.length);
    if (page.nextCursor === null) return { trades, pages };
    cursor = page.nextCursor;
  }
  throw new Error('paging did not end');
}

/** Trades in chronological order of entry (then exit), each once. */
function expectEntryOrderWithoutDuplicates(trades: Trade[]) {
  const keys = trades.map((t) => `${t.symbol}|${t.entryTime}|${t.exitTime}`);
  expect(new Set(keys).size).toBe(trades.length);
  for (let i = 1; i < trades.length; i++) {
    const [a, b] = [trades[i - 1]!, trades[i]!];
    expect(a.entryTime < b.entryTime || (a.entryTime === b.entryTime && a.exitTime <= b.exitTime), `trade ${i} out of order`).toBe(true);
  }
}

const SYMBOLS = ['BTC/USDT:USDT', 'ETH/USDT:USDT'];

describe('backtest trades over HTTP, with a cap of 30 stored trades', () => {
  let service: TestService;
  let alice: StratboxClient;
  let strategyId: string;

  beforeAll(async () => {
    service = await startTestService({ maxBacktestTrades: 30 });
    alice = (await service.newUser('alice')).client;
    strategyId = (await alice.strategies.create({ body: { name: 'flip', source: FLIP } })).id;
  });
  afterAll(() => service.close());

  it('stores the first 30 trades by entry, says the cap was reached, keeps metrics over every trade, and pages exactly the stored trades', async () => {
    const created = await alice.backtests.create({ body: { strategyId, symbols: SYMBOLS, startDate: '2025-01-01', endDate: '2025-01-01' } });
    expect(created).not.toHaveProperty('tradesTruncated');
    const done = await waitFinished(alice, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');

    // 1,440 one-minute candles per symbol, a trade on nearly every one: far more than the cap
    const made = done.metrics!.tradeCount;
    expect(made).toBeGreaterThan(2 * 1_400);
    expect(done).toMatchObject({ tradeCount: made, storedTradeCount: 30, tradesTruncated: true });
    expect(SYMBOLS.reduce((n, s) => n + done.metrics!.perSymbol[s]!.tradeCount, 0)).toBe(made);
    expect(done.trades).toHaveLength(30);

    for (const limit of [7, 30, 200]) {
      const { trades, pages } = await allTrades(alice, created.id, limit);
      expect(trades).toEqual(done.trades);
      expect(pages.every((n) => n <= limit)).toBe(true);
      expect(pages.slice(0, -1).every((n) => n === limit)).toBe(true);
      expect(pages.length).toBe(Math.max(1, Math.ceil(30 / limit)));
    }
    expectEntryOrderWithoutDuplicates(done.trades!);
    // the first trades of the run: the earliest entries of both symbols
    expect(done.trades![0]!.entryTime.slice(0, 10)).toBe('2025-01-01');
    expect(new Set(done.trades!.map((t) => t.symbol))).toEqual(new Set(SYMBOLS));
    expect(done.trades!.at(-1)!.entryTime < '2025-01-01T00:30:00.000Z').toBe(true);
  });

  it('a backtest that has not completed has no trades: an empty page', async () => {
    const slow = await alice.strategies.create({
      body: { name: 'slow', source: 'export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 20000; i++) x += i; }' },
    });
    const b = await alice.backtests.create({
      body: { strategyId: slow.id, symbols: [SYMBOLS[0]!], startDate: '2024-01-01', endDate: '2024-12-31', timeframe: '1m' },
    });
    expect(await alice.backtests.trades({ params: { id: b.id } })).toEqual({ trades: [], nextCursor: null });
    const detail = await alice.backtests.get({ params: { id: b.id } });
    expect(detail).toMatchObject({ trades: null, tradeCount: null, storedTradeCount: null, tradesTruncated: null });
    await alice.backtests.cancel({ params: { id: b.id } });
  });

  it("another user's backtest is 404 on the trades route, as a missing one; a bad cursor is 400", async () => {
    const b = await alice.backtests.create({ body: { strategyId, symbols: [SYMBOLS[0]!], startDate: '2025-01-02', endDate: '2025-01-02' } });
    await waitFinished(alice, b.id);
    const bob = (await service.newUser('bob')).client;
    const foreign = await expectError(bob.backtests.trades({ params: { id: b.id } }), 404, 'NOT_FOUND');
    const missingId = `bt_${'Q'.repeat(22)}`;
    const missing = await expectError(bob.backtests.trades({ params: { id: missingId } }), 404, 'NOT_FOUND');
    expect(foreign.message).toBe(`Backtest ${b.id} not found`);
    expect(missing.message).toBe(`Backtest ${missingId} not found`);
    const first = await alice.backtests.trades({ params: { id: b.id }, query: { limit: 5 } });
    await expectError(bob.backtests.trades({ params: { id: b.id }, query: { cursor: first.nextCursor! } }), 404, 'NOT_FOUND');
    await expectError(alice.backtests.trades({ params: { id: b.id }, query: { cursor: 'bm90LWEtY3Vyc29y' } }), 400, 'VALIDATION_FAILED');
  });

  it("a bought strategy's backtest trades are the buyer's own results: the seller gets 404", async () => {
    const listing = await alice.marketplace.create({ body: { strategyId, name: 'Flip', price: 0 } });
    const carol = (await service.newUser('carol')).client;
    await carol.marketplace.purchase({ params: { id: listing.id }, body: {} });
    const run = await carol.backtests.create({ body: { strategyId: listing.id, symbols: [SYMBOLS[1]!], startDate: '2025-01-03', endDate: '2025-01-03' } });
    const done = await waitFinished(carol, run.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done).toMatchObject({ storedTradeCount: 30, tradesTruncated: true });
    expect((await allTrades(carol, run.id, 50)).trades).toEqual(done.trades);
    await expectError(alice.backtests.trades({ params: { id: run.id } }), 404, 'NOT_FOUND');
    await expectError(alice.backtests.get({ params: { id: run.id } }), 404, 'NOT_FOUND');
  });
});

describe('backtest trades over HTTP, with the default cap', () => {
  let service: TestService;
  let client: StratboxClient;

  beforeAll(async () => {
    service = await startTestService();
    client = (await service.newUser('quant')).client;
  });
  afterAll(() => service.close());

  it(`keeps the detail bounded to the first ${DETAIL_TRADES} trades and pages through all of them`, async () => {
    const strategyId = (await client.strategies.create({ body: { name: 'flip', source: FLIP } })).id;
    const created = await client.backtests.create({ body: { strategyId, symbols: [SYMBOLS[0]!], startDate: '2025-01-01', endDate: '2025-01-02' } });
    const done = await waitFinished(client, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    const made = done.metrics!.tradeCount;
    expect(made).toBeGreaterThan(2_800);
    expect(done).toMatchObject({ tradeCount: made, storedTradeCount: made, tradesTruncated: false });
    expect(done.trades).toHaveLength(DETAIL_TRADES);

    const { trades, pages } = await allTrades(client, created.id, 200);
    expect(trades).toHaveLength(made);
    expect(pages).toHaveLength(Math.ceil(made / 200));
    expect(trades.slice(0, DETAIL_TRADES)).toEqual(done.trades);
    expectEntryOrderWithoutDuplicates(trades);
    // metrics are over the trades served
    expect(trades.reduce((sum, t) => sum + t.fees, 0)).toBeCloseTo(done.metrics!.feesPaid, 6);
  });
});
