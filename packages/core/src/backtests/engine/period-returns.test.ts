import { describe, expect, it } from 'vitest';
import { MAX_GRID_PERIODS, periodCount, periodGrid, periodReturns } from './period-returns.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

describe('periodReturns', () => {
  it('each period: equity after its last point over equity after the previous one, the first from the initial capital', () => {
    // Periods of 10 ms from 0: [0, 10), [10, 20), [20, 30).
    const returns = periodReturns([0, 5, 10, 15, 20, 25], [100, 110, 121, 110, 110, 99], 100, { start: 0, end: 30, periodMs: 10 });
    expect(Array.from(returns)).toEqual([110 / 100 - 1, 110 / 110 - 1, 99 / 110 - 1]);
  });

  it('a period without points keeps the equity it started with (return 0), and the next one starts from it', () => {
    // A gap over [10, 30): the periods [10, 20) and [20, 30) have no candle.
    const returns = periodReturns([0, 5, 30, 35], [100, 120, 126, 90], 100, { start: 0, end: 40, periodMs: 10 });
    expect(Array.from(returns)).toEqual([120 / 100 - 1, 0, 0, 90 / 120 - 1]);
  });

  it('periods before the first point are flat at the initial capital', () => {
    const returns = periodReturns([25], [80], 100, { start: 0, end: 30, periodMs: 10 });
    expect(Array.from(returns)).toEqual([0, 0, 80 / 100 - 1]);
  });

  it('the last period is partial when the span is not a whole number of periods, and counts its points', () => {
    const grid = { start: 0, end: 25, periodMs: 10 };
    expect(periodCount(grid)).toBe(3);
    const returns = periodReturns([0, 10, 20, 24], [100, 100, 100, 150], 100, grid);
    expect(Array.from(returns)).toEqual([0, 0, 0.5]);
  });

  it('a point exactly at a period end belongs to the next period', () => {
    const returns = periodReturns([9, 10], [200, 300], 100, { start: 0, end: 20, periodMs: 10 });
    expect(Array.from(returns)).toEqual([1, 0.5]);
  });

  it('0 when the period starts at zero or negative equity (a ruined account)', () => {
    const returns = periodReturns([0, 10, 20], [0, -5, 10], 100, { start: 0, end: 30, periodMs: 10 });
    expect(Array.from(returns)).toEqual([-1, 0, 0]);
  });

  it('compounds to the total return of the curve', () => {
    const times = Array.from({ length: 1000 }, (_, i) => i * MINUTE);
    const equity = times.map((_, i) => 1000 * (1 + 0.3 * Math.sin(i / 50)) + i);
    const returns = periodReturns(times, equity, 1000, periodGrid({ start: 0, end: 1000 * MINUTE }, MINUTE));
    expect(returns.reduce((product, r) => product * (1 + r), 1)).toBeCloseTo(equity.at(-1)! / 1000, 10);
  });

  it('no period for an empty span', () => {
    expect(periodReturns([0], [1], 1, { start: 10, end: 10, periodMs: 5 })).toHaveLength(0);
  });
});

describe('periodGrid', () => {
  it('the timeframe itself when the window holds at most 512 candles', () => {
    expect(periodGrid({ start: 0, end: 512 * HOUR }, HOUR).periodMs).toBe(HOUR);
    expect(periodGrid({ start: 0, end: 100 * MINUTE }, MINUTE).periodMs).toBe(MINUTE);
  });

  it('the shortest of 1h, 4h, 1d, 1w that gives at most 512 periods', () => {
    expect(periodGrid({ start: 0, end: 513 * MINUTE }, MINUTE).periodMs).toBe(HOUR);
    expect(periodGrid({ start: 0, end: 30 * DAY }, MINUTE).periodMs).toBe(4 * HOUR);
    expect(periodGrid({ start: 0, end: 365 * DAY }, HOUR).periodMs).toBe(DAY);
    expect(periodGrid({ start: 0, end: 5 * 365 * DAY }, 4 * HOUR).periodMs).toBe(WEEK);
  });

  it('only multiples of the timeframe: candles of 7 minutes skip 1h, 4h and 1d (not multiples of 7 minutes)', () => {
    // 1w = 1440 × 7 min is a multiple; a day is not.
    expect(periodGrid({ start: 0, end: 100 * DAY }, 7 * MINUTE).periodMs).toBe(WEEK);
  });

  it('past 512 weeks, the timeframe times ceil(candles / 512): never more than 512 periods', () => {
    const window = { start: 0, end: 600 * WEEK };
    const grid = periodGrid(window, DAY);
    expect(grid.periodMs).toBe(DAY * Math.ceil((600 * 7) / 512));
    expect(periodCount(grid)).toBeLessThanOrEqual(MAX_GRID_PERIODS);
  });

  it('the grid spans the window', () => {
    expect(periodGrid({ start: 5 * HOUR, end: 50 * HOUR }, HOUR)).toEqual({ start: 5 * HOUR, end: 50 * HOUR, periodMs: HOUR });
  });
});
