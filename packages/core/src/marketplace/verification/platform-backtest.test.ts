import { afterEach, describe, expect, it } from 'vitest';
import { newBacktestRecord } from '../../backtests/new-backtest-record.js';
import { runPlatformBacktest } from './platform-backtest.js';
import { harness, listed, type Harness } from './test-fixtures.js';

const open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

async function start(settings = {}) {
  const h = await harness('2025-03-10T12:00:30.000Z', { backtestDays: 30, ...settings });
  open.push(h);
  return h;
}

async function completed(h: Harness, userId: string, id: string) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const record = await h.stratbox.store.backtests.findById(userId, id);
    if (record && ['completed', 'failed', 'cancelled'].includes(record.status)) return record;
    if (Date.now() > deadline) throw new Error(`backtest ${id} did not finish: ${record?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the platform backtest', () => {
  it('has the metrics of a user backtest of the same version, symbols, window, fees, slippage and funding (1e-9)', { timeout: 180_000 }, async () => {
    const h = await start();
    const { sellerId, strategyId, listing, record } = await listed(h, undefined, { symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'] });
    const version = await h.stratbox.store.strategies.getVersion(sellerId, strategyId, 1);
    expect(record.status).toBe('pending');
    expect(record.identity).toMatchObject({
      strategyVersion: 1,
      sourceSha256: version!.sourceSha256,
      params: { fast: '3', slow: '8', size: '0.5' },
      timeframe: '1h',
      marketType: 'LINEAR',
      fees: { maker: 0.0002, taker: 0.0005 },
      slippage: 0.0005,
      funding: true,
      initialCapital: 10_000,
    });

    const ready = await runPlatformBacktest(h.deps, record);
    expect(ready?.status).toBe('ready');
    const segment = ready!.backtest!;
    // 30 days ending the day before listing
    expect(segment.start).toBe('2025-02-08T00:00:00.000Z');
    expect(segment.end).toBe('2025-03-09T23:59:59.999Z');

    const { identity } = ready!;
    const created = await h.stratbox.backtests.create(sellerId, {
      strategyId,
      symbols: identity.symbols,
      startDate: segment.start.slice(0, 10),
      endDate: segment.end.slice(0, 10),
      timeframe: '1h',
      fees: identity.fees,
      slippage: identity.slippage,
      initialCapital: identity.initialCapital,
      params: identity.params,
      funding: true,
    });
    expect((await completed(h, sellerId, created.id)).status).toBe('completed');
    const user = (await h.stratbox.backtests.get(sellerId, created.id)).metrics!;
    const verified = segment.metrics;
    expect(user.tradeCount).toBeGreaterThan(20);
    expect(user.fundingPaid).not.toBe(0);
    expect(verified.tradeCount).toBe(user.tradeCount);
    for (const key of ['totalReturn', 'cagr', 'maxDrawdown', 'sharpe', 'exposure', 'feesPaid', 'fundingPaid'] as const) {
      expect(verified[key], key).toBeCloseTo(user[key]!, 9);
    }
    expect(verified.psr).toBeGreaterThanOrEqual(0);
    expect(verified.psr).toBeLessThanOrEqual(1);
    expect(segment.equity.length).toBeGreaterThan(100);
    expect(segment.equity.length).toBeLessThanOrEqual(1_000);

    // the listing carries the summary; the compute is logged as the platform's, never metered to the seller
    const summary = (await h.stratbox.store.listings.findById(listing.id))!.recordSummary;
    expect(summary).toMatchObject({ status: 'ready', badge: 'insufficient', backtestReturn: verified.totalReturn, searchEffort: 0 });
    const computed = h.logger.lines.find((l) => l.message === 'Verification compute (platform)' && l.fields?.recordId === record.id);
    expect(computed?.fields?.computeMs).toBeGreaterThan(0);
    // a record already run is not run again
    expect(await runPlatformBacktest(h.deps, ready!)).toBeNull();
  });

  it('deflates the Sharpe ratio of a strategy searched 500 times more than of the same one searched once', { timeout: 180_000 }, async () => {
    const h = await start();
    const searched = (count: number) => async (sellerId: string, strategyId: string) => {
      for (let i = 0; i < count; i++) {
        const fields = {
          userId: sellerId,
          strategyId,
          strategyVersion: 1,
          totalBars: 24,
          symbols: ['BTC/USDT:USDT'],
          startDate: '2025-01-01',
          endDate: '2025-01-01',
          timeframe: '1h',
          marketType: 'LINEAR' as const,
          fees: { maker: 0.0002, taker: 0.0005 },
          leverage: 1,
          slippage: 0,
          initialCapital: 10_000,
          params: { fast: String(2 + (i % 5)) },
          funding: true,
        };
        await h.stratbox.store.backtests.insert(newBacktestRecord(fields, h.clock.now().toISOString()));
      }
      h.clock.advance(1_000);
    };
    const many = await listed(h, undefined, { beforeListing: searched(500) });
    const once = await listed(h, undefined, { beforeListing: searched(1) });
    expect(many.record.searchEffort).toEqual({ backtests: 500, trials: 0, total: 500 });
    expect(once.record.searchEffort).toEqual({ backtests: 1, trials: 0, total: 1 });
    const a = (await runPlatformBacktest(h.deps, many.record))!.backtest!.metrics;
    const b = (await runPlatformBacktest(h.deps, once.record))!.backtest!.metrics;
    // the same returns: the same PSR
    expect(a.totalReturn).toBe(b.totalReturn);
    expect(a.psr).toBe(b.psr);
    expect(b.dsr).toBe(b.psr);
    expect(a.dsr).not.toBeNull();
    expect(a.dsr!).toBeLessThan(b.dsr!);
  });

  it('fails a record whose strategy throws, saying so without quoting the source', { timeout: 60_000 }, async () => {
    const h = await start();
    const source = `export const meta = { timeframe: '1h' };\nexport function onCandle() { throw new Error('secret sauce 42'); }`;
    const { record, listing } = await listed(h, source);
    const failed = await runPlatformBacktest(h.deps, record);
    expect(failed?.status).toBe('failed');
    expect(failed?.error?.code).toBe('STRATEGY_ERROR');
    expect(JSON.stringify(failed?.error)).not.toContain('secret sauce');
    expect((await h.stratbox.store.listings.findById(listing.id))!.recordSummary?.status).toBe('failed');
  });
});
