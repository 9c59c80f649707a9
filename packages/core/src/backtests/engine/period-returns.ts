import type { TimeWindow } from './time-window.js';

/*
 * Period returns of an equity curve on a fixed time grid: what an optimization keeps of each
 * trial to compare parameter sets, stitch out-of-sample folds and compute the overfitting
 * statistics, without the curve itself. Pure functions over plain data.
 */

/** The most periods `periodGrid` gives a window. */
export const MAX_GRID_PERIODS = 512;

const HOUR = 3_600_000;
/** Period lengths `periodGrid` prefers, shortest first, after the timeframe itself. */
const ROUND_PERIODS = [HOUR, 4 * HOUR, 24 * HOUR, 7 * 24 * HOUR];

/**
 * A grid of periods `[start + k × periodMs, start + (k + 1) × periodMs)` for k = 0 ..
 * `periodCount(grid)` - 1: the last period may reach past `end` (a partial period).
 */
export interface PeriodGrid {
  start: number;
  end: number;
  periodMs: number;
}

/** How many periods the grid has: ceil((end - start) / periodMs), 0 for an empty span. */
export function periodCount(grid: PeriodGrid): number {
  return grid.end > grid.start ? Math.ceil((grid.end - grid.start) / grid.periodMs) : 0;
}

/**
 * The grid an optimization should use over `window` for candles of `timeframeMs`: the shortest
 * of the timeframe, 1h, 4h, 1d and 1w that is a whole multiple of the timeframe and gives at most
 * `MAX_GRID_PERIODS` periods over the window; when none does, the timeframe times
 * ceil(candles / MAX_GRID_PERIODS), candles being ceil((end - start) / timeframeMs). So a
 * window always has from 1 to MAX_GRID_PERIODS periods, each a whole number of candles.
 */
export function periodGrid(window: TimeWindow, timeframeMs: number): PeriodGrid {
  const span = window.end - window.start;
  const fits = (periodMs: number) => Math.ceil(span / periodMs) <= MAX_GRID_PERIODS;
  const periodMs =
    [timeframeMs, ...ROUND_PERIODS.filter((p) => p > timeframeMs && p % timeframeMs === 0)].find(fits) ??
    timeframeMs * Math.ceil(Math.ceil(span / timeframeMs) / MAX_GRID_PERIODS);
  return { start: window.start, end: window.end, periodMs };
}

/**
 * The return of each period of `grid` for the equity curve `equity` marked at `times` (ascending;
 * one point per candle close, the mark after the candle opening at that time) starting from
 * `initial`: equity at the end of the period (after the last point whose time is before the
 * period's end; a period without points keeps the equity it started with) over equity at its
 * start (the first period starts at `initial`), minus 1; 0 when the starting equity is 0 or less.
 * Points before `grid.start` count in the first period, points at or after the last period's end
 * in none. The returns compound to the curve's total return: Π(1 + r) = equity at the end / initial
 * (when equity stays positive).
 */
export function periodReturns(times: ArrayLike<number>, equity: ArrayLike<number>, initial: number, grid: PeriodGrid): Float64Array {
  const count = periodCount(grid);
  const returns = new Float64Array(count);
  let before = initial;
  let j = 0;
  for (let k = 0; k < count; k++) {
    const periodEnd = grid.start + (k + 1) * grid.periodMs;
    let after = before;
    while (j < times.length && times[j]! < periodEnd) after = equity[j++]!;
    returns[k] = before > 0 ? after / before - 1 : 0;
    before = after;
  }
  return returns;
}
