import { afterEach, describe, expect, it } from 'vitest';
import { DriftReport } from '@stratbox/contract';
import { startLiveHarness, type LiveHarness } from '../deployments/live-faults-harness.js';
import { FAKE_BINANCE_MARK } from '../testing/fake-binance-usdm.js';

/*
 * The drift report of a live deployment on an exchange that does worse than the model: the real
 * runner, through the real ccxt binanceusdm class, against the local Binance double, on flat
 * candles at the double's price and a clock the test moves by hand. The double fills every
 * market order 5 bps worse than the replay's model price, expires one order unfilled, and charges
 * a commission 0.01 % above the model's taker fee. The report must say exactly that.
 */

const SLIPPAGE = 0.0005;
const TAKER = 0.0005;
const COMMISSION = TAKER + 0.0001;
const WORSE = 0.0005;
const QUANTITY = 0.01;

/** A market buy on odd candles and a market sell on even ones, for 8 candles; then idle (the replay has a next open for every order). */
const ALTERNATE = `
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, c) {
  n++;
  if (n > 8) return;
  if (n % 2 === 1) ctx.buy(c.symbol, { quantity: ${QUANTITY} });
  else ctx.sell(c.symbol, { quantity: ${QUANTITY} });
}
`;

describe('drift report against the Binance double', () => {
  let h: LiveHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('states the 5 bps slippage, the missed trade, the fee gap, and a waterfall that sums to live minus replay', { timeout: 120_000 }, async () => {
    h = await startLiveHarness(ALTERNATE, { drift: { slippage: SLIPPAGE, fees: { maker: 0.0002, taker: TAKER } } });
    const fake = h.fake;
    // The replay fills a market order at the next open (the flat price) moved by the model's slippage; the double 5 bps worse than that.
    const model = (side: 'BUY' | 'SELL') => FAKE_BINANCE_MARK * (side === 'BUY' ? 1 + SLIPPAGE : 1 - SLIPPAGE);
    fake.marketFillPrice = (side) => model(side) * (side === 'BUY' ? 1 + WORSE : 1 - WORSE);
    fake.commissionRate = COMMISSION;

    const runner = await h.runner();
    expect(await runner.start()).toBeNull();
    for (let candle = 1; candle <= 10; candle++) {
      // The 5th order (a buy) finds no liquidity: the exchange expires it unfilled.
      if (candle === 5) fake.orderFaults.push('expire');
      h.clock.nextCandle();
      expect(await runner.cycle()).toBeNull();
    }
    const orders = await h.orders();
    expect(orders.filter((o) => o.filledQuantity > 0)).toHaveLength(7);
    expect(orders.find((o) => o.filledQuantity === 0)).toMatchObject({ side: 'buy' });

    const report = DriftReport.parse(await h.stratbox.drift.report(h.userId, h.deployment.id));

    // Every decision was made again by the replay at the same candle: the dropped fill changed no decision.
    expect(report.parity).toMatchObject({ liveIntents: 8, matched: 8, share: 1, firstDivergence: null });
    // 7 fills matched, the expired buy missed (the replay filled it), nothing extra.
    expect(report.trades).toMatchObject({ matched: 7, missed: 1, extra: 0 });
    const missed = report.trades.list.filter((t) => t.kind === 'missed');
    expect(missed).toHaveLength(1);
    expect(missed[0]).toMatchObject({ side: 'buy', live: null });
    expect(missed[0]!.replay!.price).toBeCloseTo(model('BUY'), 9);

    // Slippage against the model: 5 bps on every matched fill.
    const slip = report.costs.slippage;
    expect(slip.count).toBe(7);
    expect(slip.modelBps).toBeCloseTo(SLIPPAGE * 1e4, 9);
    for (const bps of [slip.meanBps, slip.p50Bps, slip.p95Bps]) expect(bps).toBeCloseTo(5, 6);

    // The fee gap: the exchange charged 0.01 % more than the model's taker fee on each matched fill.
    const matched = report.trades.list.filter((t) => t.kind === 'matched');
    const sum = (f: (t: (typeof matched)[number]) => number) => matched.reduce((total, t) => total + f(t), 0);
    expect(sum((t) => t.live!.fee) / sum((t) => t.live!.price * t.live!.quantity)).toBeCloseTo(COMMISSION, 12);
    expect(sum((t) => t.replay!.fee) / sum((t) => t.replay!.price * t.replay!.quantity)).toBeCloseTo(TAKER, 12);
    const expectedGap = sum((t) => (COMMISSION * t.live!.price - TAKER * t.replay!.price) * t.live!.quantity);
    expect(expectedGap).toBeGreaterThan(0);
    expect(report.costs.fees.gap).toBeCloseTo(expectedGap, 9);

    // The waterfall's parts sum to live minus replay P&L, to 1e-9.
    const w = report.waterfall;
    const parts = w.missedTrades + w.extraTrades + w.slippage + w.fees + w.funding + w.downtime + w.remainder;
    expect(Math.abs(parts - (w.livePnl - w.replayPnl))).toBeLessThanOrEqual(1e-9);
    // Its slippage and fee parts are the costs above, as losses.
    const slippageCost = sum((t) => (t.side === 'buy' ? 1 : -1) * (t.live!.price - t.replay!.price) * t.live!.quantity);
    expect(w.slippage).toBeCloseTo(-slippageCost, 9);
    expect(w.fees).toBeCloseTo(-expectedGap, 9);
    expect(w.missedTrades).not.toBe(0);

    // A threshold the slippage crosses raises one deployment.drift event; asked again, the stored report raises none more.
    await h.stratbox.drift.setThresholds(h.userId, h.deployment.id, { maxSlippageRatio: 0.5 });
    const alerted = await h.stratbox.drift.report(h.userId, h.deployment.id);
    expect(alerted.alerts.breached.map((b) => b.metric)).toContain('slippage');
    const events = async () => (await h!.store.notificationEvents.list(h!.userId, { limit: 50 })).filter((e) => e.type === 'deployment.drift');
    expect(await events()).toHaveLength(1);
    await h.stratbox.drift.report(h.userId, h.deployment.id);
    expect(await events()).toHaveLength(1);
  });

  it('keeps the recording across a restart: the report spans both runs and names the restart as the first divergence', { timeout: 120_000 }, async () => {
    h = await startLiveHarness(ALTERNATE, { drift: { slippage: 0, fees: { maker: 0.0002, taker: TAKER } } });
    h.fake.commissionRate = TAKER;
    const first = await h.runner();
    expect(await first.start()).toBeNull();
    for (let candle = 1; candle <= 3; candle++) {
      h.clock.nextCandle();
      expect(await first.cycle()).toBeNull();
    }
    // The process dies; a new one resumes the deployment (its strategy starts afresh: its candle count is lost).
    await first.halt();
    const second = await h.runner();
    expect(await second.start()).toBeNull();
    for (let candle = 4; candle <= 8; candle++) {
      h.clock.nextCandle();
      expect(await second.cycle()).toBeNull();
    }
    const report = DriftReport.parse(await h.stratbox.drift.report(h.userId, h.deployment.id));
    expect(report.runs.map((r) => r.resumed)).toEqual([false, true]);
    expect(report.candles).toEqual({ recorded: 8, downtime: 0 });
    // Candle 4 is the resumed strategy's first: it buys where the replay (one continuous run) sells.
    expect(report.parity.share).toBeLessThan(1);
    expect(report.parity.firstDivergence).toMatchObject({ cause: 'restart' });
    const divergence = Date.parse(report.parity.firstDivergence!.time);
    const resumedAt = Date.parse(report.runs[1]!.startedAt);
    expect(divergence).toBeLessThanOrEqual(resumedAt);
    expect(divergence).toBeGreaterThan(resumedAt - 2 * 60_000);
  });
});
