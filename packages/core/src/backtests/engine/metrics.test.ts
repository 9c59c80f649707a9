import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from './backtest-pool.js';
import { curveMetrics, medianGap, tradeMetrics, YEAR_MS } from './metrics.js';
import { candlesOf, flat, T0 } from './test-fixtures.js';

const DAY = 86_400_000;

describe('curve metrics against a hand-computed fixture', () => {
  // Capital 100, then daily marks 110, 99, 121, 110.
  const times = [0, DAY, 2 * DAY, 3 * DAY];
  const values = [110, 99, 121, 110];
  const m = curveMetrics({ times, values, initial: 100, inMarket: [1, 1, 0, 0] });

  it('total return, CAGR and exposure', () => {
    expect(m.totalReturn).toBeCloseTo(0.1, 12);
    // 4 days of marks (3 gaps + one bar): years = 4 / 365
    expect(m.cagr).toBeCloseTo(1.1 ** (365 / 4) - 1, 6);
    expect(m.exposure).toBe(0.5);
  });

  it('max drawdown and its duration', () => {
    // Peak 110 -> 99 is 10%; peak 121 -> 110 is 9.09%. The 110 peak recovers after 2 days; 121 is not recovered by the end (1 day).
    expect(m.maxDrawdown).toBeCloseTo(0.1, 12);
    expect(m.maxDrawdownDuration).toBe(2 * DAY);
    expect(m.calmar).toBeCloseTo(m.cagr! / 0.1, 6);
  });

  it('sharpe and sortino from per-mark returns, annualized by sqrt(marks per year)', () => {
    // Returns: +10%, -10%, +22.2222%, -9.0909%
    const r = [0.1, -0.1, 121 / 99 - 1, 110 / 121 - 1];
    const mean = (0.1 - 0.1 + 0.2222222222222222 - 0.0909090909090909) / 4; // 0.032828282828
    expect(mean).toBeCloseTo(0.0328282828, 9);
    const sampleVar = r.reduce((s, x) => s + (x - mean) ** 2, 0) / 3;
    // deviations 0.06717, -0.13283, 0.18939, -0.12374; squares sum 0.073336; / 3 = 0.024445
    expect(Math.sqrt(sampleVar)).toBeCloseTo(0.15635, 5);
    expect(m.sharpe).toBeCloseTo(4.0114, 3); // 0.0328283 / 0.156350 * sqrt(365)
    const downside = Math.sqrt((0.01 + 0.0909090909 ** 2) / 4); // 0.06757
    expect(downside).toBeCloseTo(0.06757, 4);
    expect(m.sortino).toBeCloseTo((0.0328282828 / downside) * Math.sqrt(365), 6);
  });

  it('gives null where a ratio is undefined', () => {
    const flatCurve = curveMetrics({ times: [0, DAY], values: [100, 100], initial: 100 });
    expect(flatCurve).toMatchObject({ totalReturn: 0, maxDrawdown: 0, sharpe: null, sortino: null, calmar: null, exposure: null });
    // One mark and no spacing to measure: no period to annualize over.
    expect(curveMetrics({ times: [0], values: [90], initial: 100 }).cagr).toBeNull();
    expect(YEAR_MS).toBe(365 * DAY);
  });

  it('median gap of marks', () => {
    expect(medianGap([0, 60_000, 120_000, 300_000, 360_000])).toBe(60_000);
  });

  it('median gap: the middle of the sorted gaps, with few distinct gaps (counted) or many (sorted)', () => {
    // The definition, spelled out: every `step`-th gap, sorted, the lower middle one.
    const bySorting = (times: number[]) => {
      const step = Math.max(1, Math.floor((times.length - 1) / 10_000));
      const gaps: number[] = [];
      for (let i = 1; i < times.length; i += step) gaps.push(times[i]! - times[i - 1]!);
      return gaps.sort((a, b) => a - b)[(gaps.length - 1) >> 1];
    };
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const series = (n: number, gapOf: () => number) => {
      const times = [0];
      for (let i = 1; i < n; i++) times.push(times[i - 1]! + gapOf());
      return times;
    };
    const HOUR = 3_600_000;
    const cases = [
      series(8760, () => HOUR), // regular candles
      series(8761, () => (random() < 0.1 ? 2 * HOUR : HOUR)), // missing candles
      series(5000, () => (random() < 0.5 ? HOUR : random() < 0.5 ? 2 * HOUR : 4 * HOUR)), // the middle on a boundary between gaps
      series(3000, () => Math.floor(random() * 1000) * 60_000), // hundreds of distinct gaps: sorted
      series(25_001, () => Math.floor(random() * 40) * HOUR), // longer than 10,000 gaps: sampled
      [0, HOUR],
    ];
    for (const times of cases) expect(medianGap(times)).toBe(bySorting(times));
  });
});

describe('trade metrics against a hand-computed fixture', () => {
  it('win rate, profit factor, expectancy, fees, funding', () => {
    const m = tradeMetrics({ pnl: [10, -5, 20, -5], fees: [1, 1, 2, 0.5], funding: [0.5, -0.25, 1, 0] });
    expect(m).toEqual({ winRate: 0.5, profitFactor: 3, expectancy: 5, tradeCount: 4, feesPaid: 4.5, fundingPaid: 1.25 });
    expect(tradeMetrics({ pnl: [3], fees: [0] })).toEqual({ winRate: 1, profitFactor: null, expectancy: 3, tradeCount: 1, feesPaid: 0, fundingPaid: 0 });
    expect(tradeMetrics({ pnl: [], fees: [] })).toEqual({ winRate: null, profitFactor: null, expectancy: null, tradeCount: 0, feesPaid: 0, fundingPaid: 0 });
  });
});

describe('metrics of a real run', () => {
  const pool = createSandboxPool({ size: 1 });
  afterAll(() => pool.close());

  it('agree with the trades and equity curve of the run', async () => {
    // Buy 10 at 101 (open of candle 1), sell at 120 (open of candle 3), buy 10 at 110 (open of 5), end at 100.
    const rows: [number, number, number, number][] = [
      flat(100),
      [101, 101, 101, 101],
      flat(105),
      [120, 120, 120, 120],
      flat(115),
      [110, 110, 110, 110],
      flat(100),
    ];
    const source = `let i = 0;
export function onCandle(ctx, c) {
  if (i === 0 || i === 4) ctx.buy(c.symbol, { quantity: 10 });
  if (i === 2) ctx.close(c.symbol);
  i++;
}`;
    const r = await pool.runBacktest({ source, candles: { 'ETH/USDT': candlesOf(rows, T0, DAY) }, fees: { maker: 0, taker: 0.001 } });
    expect(r.trades.map((t) => [t.entryPrice, t.exitPrice, t.exitReason])).toEqual([
      [101, 120, 'market'],
      [110, 100, 'end'],
    ]);
    const fees1 = 10 * 101 * 0.001 + 10 * 120 * 0.001;
    const fees2 = 10 * 110 * 0.001 + 10 * 100 * 0.001;
    expect(r.trades[0]!.pnl).toBeCloseTo(190 - fees1, 10);
    expect(r.trades[1]!.pnl).toBeCloseTo(-100 - fees2, 10);
    const m = r.metrics;
    expect(m.tradeCount).toBe(2);
    expect(m.winRate).toBe(0.5);
    expect(m.feesPaid).toBeCloseTo(fees1 + fees2, 10);
    expect(m.profitFactor).toBeCloseTo((190 - fees1) / (100 + fees2), 10);
    expect(m.expectancy).toBeCloseTo((90 - fees1 - fees2) / 2, 10);
    expect(m.totalReturn).toBeCloseTo((90 - fees1 - fees2) / 10_000, 12);
    expect(r.equityCurve.at(-1)!.equity).toBeCloseTo(10_000 + 90 - fees1 - fees2, 9);
    expect(m.buyAndHoldReturn).toBeCloseTo(0, 12); // first close 100, last close 100
    // In the market at the closes of candles 1, 2, 5 and 6 (the last mark is before the end close).
    expect(m.exposure).toBeCloseTo(4 / 7, 12);
    const { perSymbol, ...overall } = m;
    expect(perSymbol['ETH/USDT']).toEqual(overall);
  });
});
