import { DriftReport } from '@stratbox/contract';
import { describe, expect, it } from 'vitest';
import { computeDrift } from './compute-drift.js';
import { CAPITAL, DAY, DEP, scenario, T0 } from './test-fixtures.js';

/*
 * The fixture (test-fixtures.ts), by hand. Quantity 10, slippage 5 bps, taker fee 0.06 %:
 *   buy  decided day 1, fills day 2 at 102.5 × 1.0005 = 102.55125, fee 1025.5125 × 0.0006 = 0.6153075
 *   sell decided day 5, fills day 6 at 104   × 0.9995 = 103.948,   fee 1039.48   × 0.0006 = 0.623688
 *   buy  decided day 7, fills day 8 at 108.5 × 1.0005 = 108.55425, fee 1085.5425 × 0.0006 = 0.6513255
 * Replay cash after the sell: 10000 − 1025.5125 − 0.6153075 + 1039.48 − 0.623688 = 10012.7285045;
 * after the last buy: 10012.7285045 − 1085.5425 − 0.6513255 = 8926.534679; final equity with
 * 10 at the last close 110: 10026.534679, so replayPnl = 26.534679.
 */
const REPLAY_PNL = 26.534679;

describe('computeDrift', () => {
  it('finds no drift when the live run is the replay', () => {
    const report = DriftReport.parse(computeDrift(scenario()));
    expect(report.parity).toEqual({ liveIntents: 3, matched: 3, share: 1, firstDivergence: null });
    expect(report.trades).toMatchObject({ matched: 3, missed: 0, extra: 0, meanOffsetMs: 5_000 });
    expect(report.costs.slippage).toMatchObject({ count: 3, meanBps: 0, p50Bps: 0, p95Bps: 0, modelBps: 5 });
    expect(report.costs.fees.gap).toBe(0);
    expect(report.costs.funding).toEqual({ live: 0, replay: 0, gap: 0 });
    // Ten daily points: nine daily returns, identical on both sides.
    expect(report.equity.correlation).toBeCloseTo(1, 12);
    expect(report.equity.dtw).toBe(0);
    expect(report.equity.trackingError).toBe(0);
    expect(report.equity.finalDifference).toBe(0);
    expect(report.equity.maxDrawdown.difference).toBe(0);
    expect(report.equity.points).toHaveLength(10);
    expect(report.equity.points.every((p) => p.live === p.replay)).toBe(true);
    expect(report.waterfall.replayPnl).toBeCloseTo(REPLAY_PNL, 9);
    expect(report.waterfall.livePnl).toBe(report.waterfall.replayPnl);
    const { missedTrades, extraTrades, slippage, fees, funding, downtime, remainder } = report.waterfall;
    // Exactly zero (Math.abs: a negated zero sum is −0).
    for (const part of [missedTrades, extraTrades, slippage, fees, funding, downtime, remainder]) expect(Math.abs(part)).toBe(0);
    expect(report.alerts.breached).toEqual([]);
    expect(report.window).toEqual({ from: new Date(T0).toISOString(), to: new Date(T0 + 10 * DAY).toISOString() });
    expect(report.candles).toEqual({ recorded: 10, downtime: 0 });
  });

  it('gives null correlation and tracking error on fewer than three daily returns', () => {
    const input = scenario();
    input.live.candles = input.live.candles.slice(0, 3);
    input.replay.equityCurve = input.replay.equityCurve.slice(0, 3);
    const report = computeDrift(input);
    expect(report.equity.correlation).toBeNull();
    expect(report.equity.dtw).toBe(0);
  });

  it('states 5 bps when every live fill is 5 bps worse, and the slippage it cost', () => {
    const report = computeDrift(scenario({ liveFill: (f) => ({ ...f, price: f.price * (f.side === 'buy' ? 1.0005 : 0.9995) }) }));
    const { slippage } = report.costs;
    expect(slippage.count).toBe(3);
    for (const v of [slippage.meanBps, slippage.p50Bps, slippage.p95Bps]) expect(v).toBeCloseTo(5, 9);
    expect(slippage.histogram.reduce((s, b) => s + b.count, 0)).toBe(3);
    // 0.0005 × 10 × (102.55125 + 103.948 + 108.55425) = 0.51275625 + 0.51974 + 0.54277125 = 1.5752675
    expect(report.waterfall.slippage).toBeCloseTo(-1.5752675, 9);
    // The live account lost exactly that: nothing is left over.
    expect(report.waterfall.remainder).toBeCloseTo(0, 9);
    expect(report.waterfall.livePnl - report.waterfall.replayPnl).toBeCloseTo(-1.5752675, 9);
    // 5 bps ≤ 5 × max(5 bps, 1): no slippage alert at the default ratio; at a ratio of 0.5 there is one.
    expect(report.alerts.breached).toEqual([]);
    const strict = computeDrift({
      ...scenario({ liveFill: (f) => ({ ...f, price: f.price * (f.side === 'buy' ? 1.0005 : 0.9995) }) }),
      thresholds: { minCorrelation: null, maxDtw: null, maxSlippageRatio: 0.5, parityMiss: true },
    });
    expect(strict.alerts.breached).toEqual([{ metric: 'slippage', value: expect.closeTo(5, 9), limit: 2.5 }]);
  });

  it('counts one missed trade when one replay fill has no live counterpart', () => {
    const report = computeDrift(scenario({ liveFill: (f, i) => (i === 2 ? null : f) }));
    expect(report.trades).toMatchObject({ matched: 2, missed: 1, extra: 0 });
    const missed = report.trades.list.find((t) => t.kind === 'missed')!;
    expect(missed).toMatchObject({ side: 'buy', live: null, offsetMs: null, slippageBps: null, replay: { price: 108.55425, quantity: 10 } });
    // The strategy did decide it: parity is whole, the exchange dropped the fill.
    expect(report.parity.share).toBe(1);
    // −[(110 − 108.55425) × 10 − 0.6513255] = −13.8061745, all of live − replay P&L.
    expect(report.waterfall.missedTrades).toBeCloseTo(-13.8061745, 9);
    expect(report.waterfall.livePnl).toBeCloseTo(12.7285045, 9);
    expect(report.waterfall.remainder).toBeCloseTo(0, 9);
  });

  it('reports the fee gap of a 0.01 % higher fee', () => {
    const report = computeDrift(scenario({ liveFill: (f) => ({ ...f, fee: f.fee + f.price * f.quantity * 0.0001 }) }));
    // 0.0001 × (1025.5125 + 1039.48 + 1085.5425) = 0.0001 × 3150.535 = 0.3150535
    expect(report.costs.fees.gap).toBeCloseTo(0.3150535, 9);
    expect(report.costs.fees.replay).toBeCloseTo(0.6153075 + 0.623688 + 0.6513255, 9);
    expect(report.waterfall.fees).toBeCloseTo(-0.3150535, 9);
    expect(report.waterfall.remainder).toBeCloseTo(0, 9);
  });

  it("keeps the replay's end-of-run close out of trades and the fee gap, and puts its fee in the waterfall's fees", () => {
    // The backtest closes the 10 held at the last close, 110, fee 1100 × 0.0006 = 0.66; the live
    // run still holds them, marked at the same close: live − replay = +0.66, all of it that fee.
    const input = scenario();
    input.replay.orders.push({
      ...input.replay.orders[2]!,
      id: 'x1',
      candleTime: T0 + 9 * DAY,
      side: 'sell',
      type: 'end',
      quantity: 10,
      fillTime: T0 + 9 * DAY,
      fillPrice: 110,
      fee: 0.66,
    });
    input.replay.finalEquity -= 0.66;
    const report = computeDrift(input);
    expect(report.trades).toMatchObject({ matched: 3, missed: 0, extra: 0 });
    expect(report.parity.firstDivergence).toBeNull();
    expect(Math.abs(report.costs.fees.gap)).toBe(0);
    expect(report.waterfall.fees).toBeCloseTo(0.66, 12);
    expect(report.waterfall.remainder).toBeCloseTo(0, 9);
  });

  it('names a restart as the cause when the strategy lost its state', () => {
    // Resumed during day 5 (before that candle's close decided the sell); the resumed strategy
    // does not sell, so the live order and its fill are missing.
    const input = scenario({
      skipIntents: [1],
      liveFill: (f, i) => (i === 1 ? null : f),
      runs: [
        { deploymentId: DEP, startedAt: new Date(T0 - 60_000).toISOString(), startEquity: CAPITAL, resumed: false },
        { deploymentId: DEP, startedAt: new Date(T0 + 5 * DAY + 3_600_000).toISOString(), startEquity: 10_013.87, resumed: true },
      ],
    });
    const report = computeDrift(input);
    expect(report.parity).toMatchObject({ liveIntents: 2, matched: 2, share: 1 });
    expect(report.parity.firstDivergence).toMatchObject({ time: new Date(T0 + 5 * DAY).toISOString(), cause: 'restart' });
    expect(report.runs).toHaveLength(2);
    // Every live intent was matched, but the replay made one the live run did not: a parity miss.
    expect(report.alerts.breached).toContainEqual({ metric: 'parity', value: 2 / 3, limit: 1 });
  });

  it('names a missed candle when the run was down before the divergence', () => {
    const report = computeDrift(scenario({ skipIntents: [1], liveFill: (f, i) => (i === 1 ? null : f), downtime: [4] }));
    expect(report.parity.firstDivergence).toMatchObject({ time: new Date(T0 + 5 * DAY).toISOString(), cause: 'missed_candle' });
    expect(report.candles).toEqual({ recorded: 9, downtime: 1 });
    // The replay gained 20 on day 4 (10 × (107 − 105)), which the live run was not there for.
    expect(report.waterfall.downtime).toBeCloseTo(-20, 9);
    expect(report.equity.points.find((p) => p.time === new Date(T0 + 4 * DAY).toISOString())!.live).toBeNull();
  });

  it('names a different order outcome when nothing else explains it', () => {
    // The first buy never filled live; the strategy then saw no position and did not sell.
    const report = computeDrift(scenario({ skipIntents: [1], liveFill: (f, i) => (i <= 1 ? null : f) }));
    expect(report.parity.firstDivergence).toMatchObject({ cause: 'order_outcome' });
  });
});
