import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StratboxClientError, type StratboxClient } from '@stratbox/client';
import type { BacktestDetail } from '@stratbox/core/contract';
import { startTestService, type TestService } from './harness/in-process.js';
import { expectError } from './harness/client-errors.js';
import { waitFor } from './harness/deferred.js';
import { waitFinished } from './harness/wait-backtest.js';
import { simulateSmaCrossover, type RefCandle } from './reference/sma-crossover-reference.js';

const SMA = `
export const meta = {
  timeframe: '1h',
  params: {
    fast: { type: 'int', default: 5, min: 2 },
    slow: { type: 'int', default: 20, min: 3 },
    qtyA: { type: 'float', default: 0.01 },
    qtyB: { type: 'float', default: 0.01 },
  },
};
export function onCandle(ctx, candle) {
  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(candle.symbol, ctx.params.slow);
  const quantity = candle.symbol === ctx.symbols[0] ? ctx.params.qtyA : ctx.params.qtyB;
  if (f > s && !ctx.position(candle.symbol)) ctx.buy(candle.symbol, { quantity });
  else if (f < s && ctx.position(candle.symbol)) ctx.close(candle.symbol);
}
`;

const SYMBOLS = ['BTC/USDT:USDT', 'ETH/USDT:USDT'];
const RANGE = { startDate: '2025-01-01', endDate: '2025-02-15' };

async function allCandles(client: StratboxClient, symbol: string): Promise<{ candles: RefCandle[]; source: string }> {
  const out: RefCandle[] = [];
  let cursor: string | undefined;
  let source = '';
  do {
    const page = await client.marketData.candles({ query: { symbol, timeframe: '1h', ...RANGE, limit: 500, ...(cursor ? { cursor } : {}) } });
    source = page.source;
    out.push(...page.candles.map((c) => ({ ...c, time: Date.parse(c.time) })));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return { candles: out, source };
}

const iso = (ms: number) => new Date(ms).toISOString();

describe('backtests over HTTP', () => {
  let service: TestService;
  let client: StratboxClient;
  let strategyId: string;

  beforeAll(async () => {
    service = await startTestService();
    client = (await service.newUser('quant')).client;
    strategyId = (await client.strategies.create({ body: { name: 'SMA cross', source: SMA } })).id;
  });
  afterAll(() => service.close());

  it('runs an SMA crossover on two symbols and matches an independent model of the documented fill rules', async () => {
    const fees = { maker: 0.0002, taker: 0.0006 };
    const slippage = 0.0005;
    const btc = await allCandles(client, SYMBOLS[0]!);
    const eth = await allCandles(client, SYMBOLS[1]!);
    expect(btc.candles).toHaveLength(46 * 24);
    const qtyA = Number((2000 / btc.candles[0]!.close).toPrecision(6));
    const qtyB = Number((2000 / eth.candles[0]!.close).toPrecision(6));
    const params = { fast: '5', slow: '20', qtyA: String(qtyA), qtyB: String(qtyB) };

    // the reference models fills and fees, not funding: this run pays none
    const created = await client.backtests.create({ body: { strategyId, symbols: SYMBOLS, ...RANGE, fees, slippage, params, funding: false } });
    expect(created).toMatchObject({ status: 'queued', progress: 0, strategyVersion: 1, timeframe: '1h', marketType: 'LINEAR' });
    expect(created).not.toHaveProperty('equityCurve');
    const done = await waitFinished(client, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done).toMatchObject({ progress: 1, dataSource: btc.source, error: null });
    expect(done.startedAt! >= done.createdAt && done.finishedAt! >= done.startedAt!).toBe(true);

    const ref = simulateSmaCrossover({ [SYMBOLS[0]!]: btc.candles, [SYMBOLS[1]!]: eth.candles }, SYMBOLS, {
      fast: 5,
      slow: 20,
      quantity: { [SYMBOLS[0]!]: qtyA, [SYMBOLS[1]!]: qtyB },
      taker: fees.taker,
      slippage,
      initialCapital: 10_000,
    });
    expect(ref.trades.length).toBeGreaterThan(10);
    const byExit = <T extends { exitTime: string; symbol: string }>(a: T, b: T) => a.exitTime.localeCompare(b.exitTime) || a.symbol.localeCompare(b.symbol);
    const expectedTrades = ref.trades.map((t) => ({ ...t, entryTime: iso(t.entryTime), exitTime: iso(t.exitTime) })).sort(byExit);
    // every stored trade, through the paged route (the detail keeps only the first ones)
    expect(done).toMatchObject({ tradeCount: ref.trades.length, storedTradeCount: ref.trades.length, tradesTruncated: false });
    const paged: NonNullable<BacktestDetail['trades']> = [];
    for (let cursor: string | undefined, i = 0; i === 0 || cursor; i++) {
      const page = await client.backtests.trades({ params: { id: created.id }, query: { limit: 25, ...(cursor ? { cursor } : {}) } });
      paged.push(...page.trades);
      cursor = page.nextCursor ?? undefined;
    }
    expect(paged).toEqual(done.trades);
    const actualTrades = [...paged].sort(byExit);
    expect(actualTrades).toHaveLength(expectedTrades.length);
    actualTrades.forEach((t, i) => {
      const e = expectedTrades[i]!;
      expect({ symbol: t.symbol, side: t.side, entryTime: t.entryTime, exitTime: t.exitTime }).toEqual({
        symbol: e.symbol,
        side: e.side,
        entryTime: e.entryTime,
        exitTime: e.exitTime,
      });
      expect(t.entryPrice).toBeCloseTo(e.entryPrice, 6);
      expect(t.exitPrice).toBeCloseTo(e.exitPrice, 6);
      expect(t.quantity).toBeCloseTo(e.quantity, 9);
      expect(t.pnl).toBeCloseTo(e.pnl, 6);
      expect(t.fees).toBeCloseTo(e.fees, 6);
    });

    expect(done.equityCurve).toHaveLength(ref.curve.length);
    done.equityCurve!.forEach((p, i) => {
      expect(p.time).toBe(iso(ref.curve[i]!.time));
      expect(p.equity).toBeCloseTo(ref.curve[i]!.equity, 6);
    });

    const m = done.metrics!;
    expect(m.tradeCount).toBe(ref.metrics.tradeCount);
    expect(m.totalReturn).toBeCloseTo(ref.metrics.totalReturn, 9);
    expect(m.feesPaid).toBeCloseTo(ref.metrics.feesPaid, 6);
    expect(m.winRate).toBeCloseTo(ref.metrics.winRate!, 9);
    expect(m.maxDrawdown).toBeCloseTo(ref.metrics.maxDrawdown, 9);
    expect(m.expectancy).toBeCloseTo(ref.metrics.expectancy!, 6);
    const firstBtc = btc.candles[0]!.close;
    const lastBtc = btc.candles[btc.candles.length - 1]!.close;
    expect(m.perSymbol[SYMBOLS[0]!]!.buyAndHoldReturn).toBeCloseTo(lastBtc / firstBtc - 1, 9);
    expect(m.perSymbol[SYMBOLS[0]!]!.tradeCount).toBe(ref.trades.filter((t) => t.symbol === SYMBOLS[0]).length);
  });

  it('gives the same result for the same request (seeded, deterministic data)', async () => {
    const body = { strategyId, symbols: [SYMBOLS[0]!], startDate: '2025-03-01', endDate: '2025-03-10' };
    const [a, b] = await Promise.all([client.backtests.create({ body }), client.backtests.create({ body })]);
    const [ra, rb] = await Promise.all([waitFinished(client, a.id), waitFinished(client, b.id)]);
    expect(ra.metrics).toEqual(rb.metrics);
    expect(ra.trades).toEqual(rb.trades);
  });

  it('refuses bad params with 400 at create, and creates nothing', async () => {
    const before = (await client.backtests.list()).backtests.length;
    const bad: Array<Record<string, string>> = [{ fast: 'ten' }, { fast: '1' }, { nope: '1' }, { fast: '0x10' }];
    for (const params of bad) {
      const error = (await client.backtests
        .create({ body: { strategyId, symbols: SYMBOLS, ...RANGE, params } })
        .catch((e: unknown) => e)) as StratboxClientError;
      expect(error).toBeInstanceOf(StratboxClientError);
      expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      expect(JSON.stringify(error.details)).toContain(`params.${Object.keys(params)[0]}`);
    }
    expect((await client.backtests.list()).backtests.length).toBe(before);
  });

  it("refuses leverage on SPOT at create with 400 on body.leverage: SPOT given, the strategy's, or a bought SPOT listing's", async () => {
    const before = (await client.backtests.list()).backtests.length;
    const spotBody = { symbols: [SYMBOLS[0]!], startDate: '2025-01-01', endDate: '2025-01-02', leverage: 3 };
    const given = await expectError(client.backtests.create({ body: { strategyId, ...spotBody, marketType: 'SPOT' } }), 400, 'VALIDATION_FAILED');
    expect(given.details).toContainEqual({ path: 'body.leverage', message: expect.stringMatching(/SPOT.*leverage 1/) });

    const spot = await client.strategies.create({ body: { name: 'spot', source: 'export function onCandle() {}', marketType: 'SPOT' } });
    const inherited = await expectError(client.backtests.create({ body: { strategyId: spot.id, ...spotBody } }), 400, 'VALIDATION_FAILED');
    expect(inherited.details).toContainEqual({ path: 'body.leverage', message: expect.stringMatching(/SPOT.*leverage 1/) });

    // a buyer of a SPOT strategy, naming the listing or the strategy, without marketType
    const seller = (await service.newUser('spot seller')).client;
    const sold = await seller.strategies.create({ body: { name: 'spot edge', source: 'export function onCandle() {}', marketType: 'SPOT' } });
    const listing = await seller.marketplace.create({ body: { strategyId: sold.id, name: 'Spot edge', price: 0 } });
    await client.marketplace.purchase({ params: { id: listing.id }, body: {} });
    for (const id of [listing.id, sold.id]) {
      const bought = await expectError(client.backtests.create({ body: { strategyId: id, ...spotBody } }), 400, 'VALIDATION_FAILED');
      expect(bought.details).toContainEqual({ path: 'body.leverage', message: expect.stringMatching(/SPOT.*leverage 1/) });
    }
    expect((await client.backtests.list()).backtests.length).toBe(before);

    // leverage 1 on SPOT runs, and so does leverage on LINEAR given over a SPOT strategy
    const spotRun = await client.backtests.create({ body: { strategyId: listing.id, ...spotBody, leverage: 1 } });
    const linearRun = await client.backtests.create({ body: { strategyId: spot.id, ...spotBody, marketType: 'LINEAR' } });
    expect(spotRun.marketType).toBe('SPOT');
    expect(linearRun).toMatchObject({ marketType: 'LINEAR', leverage: 3 });
    for (const run of [spotRun, linearRun]) expect((await waitFinished(client, run.id)).status).toBe('completed');
  });

  it('reports a syntax error at create and update with line and column', async () => {
    const error = (await client.strategies
      .create({ body: { name: 'broken', source: 'export function onCandle(ctx, c) {\n  if (x > ) {}\n}' } })
      .catch((e: unknown) => e)) as StratboxClientError;
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(error.details).toEqual([expect.objectContaining({ path: 'source', line: 2, column: expect.any(Number) })]);
    const noHandler = (await client.strategies
      .update({ params: { id: strategyId }, body: { source: 'export const x = 1;' } })
      .catch((e: unknown) => e)) as StratboxClientError;
    expect(noHandler).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(noHandler.message).toMatch(/onCandle/);
    expect((await client.strategies.get({ params: { id: strategyId } })).version).toBe(1);
  });

  it('accepts TypeScript strategies', async () => {
    const ts = `interface Cfg { n: number }\nconst cfg: Cfg = { n: 3 };\nexport function onCandle(ctx: any, candle: { close: number }): void { if (cfg.n > 5) ctx.log(candle.close as number); }`;
    const s = await client.strategies.create({ body: { name: 'ts', source: ts } });
    const b = await client.backtests.create({ body: { strategyId: s.id, symbols: [SYMBOLS[0]!], startDate: '2025-01-01', endDate: '2025-01-03' } });
    expect((await waitFinished(client, b.id)).status).toBe('completed');
  });

  it('cancels a running backtest before its end, freeing its sandbox; a finished one is 409 and unchanged', async () => {
    const slow = await client.strategies.create({
      body: { name: 'slow', source: 'export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 20000; i++) x += i; }' },
    });
    // A year of 1m candles at 20,000 additions each: minutes of work, far longer than this test waits.
    const b = await client.backtests.create({
      body: { strategyId: slow.id, symbols: [SYMBOLS[0]!], startDate: '2024-01-01', endDate: '2024-12-31', timeframe: '1m' },
    });
    await waitFor('the slow backtest to make progress', async () => (await client.backtests.get({ params: { id: b.id } })).progress > 0, 60_000);
    const cancelled = await client.backtests.cancel({ params: { id: b.id } });
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    expect(cancelled.progress).toBeLessThan(1);
    // The service goes on running this user's jobs. Where a user runs one backtest at a time (one
    // sandbox child, as on 2 cores), this one runs only once the cancelled run let go of the child:
    // a run that went on would hold it for minutes, past waitFinished's timeout. (The engine's
    // progress-cancel and run-trials tests check the child stops on any machine.)
    const quick = await client.backtests.create({ body: { strategyId, symbols: [SYMBOLS[0]!], startDate: '2025-01-01', endDate: '2025-01-05' } });
    const quickDone = await waitFinished(client, quick.id);
    expect(quickDone.status).toBe('completed');
    const after = await client.backtests.get({ params: { id: b.id } });
    expect(after).toMatchObject({ status: 'cancelled', progress: cancelled.progress });

    const error = (await client.backtests.cancel({ params: { id: quick.id } }).catch((e: unknown) => e)) as StratboxClientError;
    expect(error).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(await client.backtests.get({ params: { id: quick.id } })).toEqual(quickDone);
  });

  it('filters the list by strategyId and status together', async () => {
    const other = await client.strategies.create({ body: { name: 'other', source: 'export function onCandle() {}' } });
    const b = await client.backtests.create({ body: { strategyId: other.id, symbols: [SYMBOLS[1]!], startDate: '2025-01-01', endDate: '2025-01-02' } });
    await waitFinished(client, b.id);
    const completedOther = await client.backtests.list({ query: { strategyId: other.id, status: 'completed' } });
    expect(completedOther.backtests.map((x) => x.id)).toEqual([b.id]);
    expect((await client.backtests.list({ query: { strategyId: other.id, status: 'failed' } })).backtests).toEqual([]);
    const completed = await client.backtests.list({ query: { status: 'completed' } });
    expect(completed.backtests.every((x) => x.status === 'completed')).toBe(true);
    expect(completed.backtests.length).toBeGreaterThan(1);
  });

  it('fails a run whose data does not exist with a clear error', async () => {
    const b = await client.backtests.create({ body: { strategyId, symbols: [SYMBOLS[0]!], startDate: '2099-01-01', endDate: '2099-01-02' } });
    const done = await waitFinished(client, b.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('DATA_NOT_FOUND');
    expect(done.error?.message).toMatch(/BTC\/USDT:USDT/);
  });

  it("keeps backtests to their owner: another user's is 404 for get and cancel, and not listed", async () => {
    const bob = (await service.newUser('bob')).client;
    const b = await client.backtests.create({ body: { strategyId, symbols: [SYMBOLS[0]!], startDate: '2025-01-01', endDate: '2025-01-02' } });
    await expect(bob.backtests.get({ params: { id: b.id } })).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(bob.backtests.cancel({ params: { id: b.id } })).rejects.toMatchObject({ status: 404 });
    await expect(bob.backtests.create({ body: { strategyId, symbols: [SYMBOLS[0]!], ...RANGE } })).rejects.toMatchObject({ status: 404 });
    expect((await bob.backtests.list()).backtests).toEqual([]);
  });
});
