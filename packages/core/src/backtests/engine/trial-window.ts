import { TIMEFRAME_MS, type TimeframeName } from '../../ports/market-data.js';
import { SandboxError } from '../../sandbox/sandbox-error.js';
import type { StrategyMeta } from '../../sandbox/strategy-meta.js';
import type { WireCandles, WireJob } from './backtest-job.js';
import type { PeriodGrid } from './period-returns.js';
import type { TimeWindow } from './time-window.js';

/**
 * A window of a job's candles for `runTrials` (epoch ms, `end` excluded): the candles opening
 * before `end`, traded from `start`, with at most `warmup` candles per symbol before `start`.
 */
export interface TrialWindow extends TimeWindow {
  /** Candles per symbol before `start` the strategy needs (its `meta.warmup`); fewer when the data has fewer. */
  warmup: number;
}

/** The most period returns one trial may answer (`periodMs` against the window): 800 KB. */
export const MAX_TRIAL_PERIODS = 100_000;

/** The first index of ascending `time` whose value is at or after `t` (`time.length` if none). */
function lowerBound(time: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = time.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (time[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first traded candle's time and the last candle's time over the symbols of a job. */
function tradedSpan(job: WireJob): { first: number; last: number } {
  let first = Infinity;
  let last = -Infinity;
  job.candles.forEach((c, s) => {
    if (c.time.length > job.history[s]!) first = Math.min(first, c.time[job.history[s]!]!);
    if (c.time.length > 0) last = Math.max(last, c.time[c.time.length - 1]!);
  });
  return { first, last };
}

function invalid(message: string): never {
  throw new SandboxError('INVALID_JOB', message);
}

/**
 * Checks a `runTrials` window and period length against the job's checked candles; throws
 * `SandboxError('INVALID_JOB')` for a malformed window, a window without candles to trade, a
 * period length that is not a positive whole number of ms or that gives more than
 * `MAX_TRIAL_PERIODS` periods.
 */
export function checkTrialWindow(job: WireJob, window: TrialWindow | undefined, periodMs: number | undefined): void {
  if (window !== undefined) {
    const { start, end, warmup } = window;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || !(start < end)) invalid('window: start and end must be whole epoch ms, start before end');
    if (!Number.isSafeInteger(warmup) || warmup < 0) invalid('window.warmup must be a whole number of candles, 0 or more');
    const traded = job.candles.reduce((sum, c) => sum + lowerBound(c.time, end) - lowerBound(c.time, start), 0);
    if (traded === 0) invalid('window: no candles from window.start to window.end');
  }
  if (periodMs === undefined) return;
  if (!Number.isSafeInteger(periodMs) || periodMs <= 0) invalid('periods.periodMs must be a positive whole number of ms');
  const { first, last } = tradedSpan(job);
  // Without a window, the grid ends a timeframe after the last candle: at most one period more.
  const periods = window ? Math.ceil((window.end - window.start) / periodMs) : Math.floor((last - first) / periodMs) + 1;
  if (periods > MAX_TRIAL_PERIODS) invalid(`periods.periodMs gives ${periods} periods, more than ${MAX_TRIAL_PERIODS}`);
}

/** A column's view up to `to` from `from` (the column itself when that is all of it: no copy either way). */
function view(column: Float64Array, from: number, to: number): Float64Array {
  return from === 0 && to === column.length ? column : column.subarray(from, to);
}

/**
 * The job of one trial over `candles` (all of the job's, in symbol order): without a window,
 * every candle, traded from `job.startTime`; with one, per symbol the candles opening before
 * `window.end` and at most `window.warmup` before `window.start`, traded from `window.start`,
 * and the funding events before `window.end`. Views into `candles`, never copies: exactly the
 * job a backtest of candles sliced the same way gets from `normalizeJob`, and nothing at or
 * after `window.end` reaches it.
 */
export function windowJob(job: Omit<WireJob, 'candles' | 'history'>, candles: readonly WireCandles[], window: TrialWindow | null): WireJob {
  const start = window?.start ?? job.startTime;
  const end = window?.end ?? Infinity;
  const warmup = window?.warmup ?? Infinity;
  const history: number[] = [];
  const sliced = candles.map((c) => {
    const first = lowerBound(c.time, start);
    const to = lowerBound(c.time, end);
    const from = Math.max(0, first - warmup);
    history.push(first - from);
    const { time, open, high, low, close, volume } = c;
    return {
      time: view(time, from, to),
      open: view(open, from, to),
      high: view(high, from, to),
      low: view(low, from, to),
      close: view(close, from, to),
      volume: view(volume, from, to),
    };
  });
  const funding = job.funding.map((f) => {
    if (f === null) return null;
    const to = lowerBound(f.time, end);
    return { time: view(f.time, 0, to), rate: view(f.rate, 0, to) };
  });
  return { ...job, candles: sliced, history, startTime: start, funding };
}

/** The timeframe of a job's candles in ms: the job's, else the strategy's, else the smallest step between two candles of a symbol. */
function timeframeMsOf(job: WireJob, meta: StrategyMeta): number {
  const name = job.timeframe ?? (meta.timeframe as TimeframeName | undefined);
  if (name !== undefined && Object.hasOwn(TIMEFRAME_MS, name)) return TIMEFRAME_MS[name];
  let step = Infinity;
  for (const c of job.candles) for (let i = 1; i < c.time.length; i++) step = Math.min(step, c.time[i]! - c.time[i - 1]!);
  return Number.isFinite(step) ? step : 1;
}

/**
 * The grid of a trial's period returns: periods of `periodMs` over the window, or without one
 * from the first traded candle to the last candle's close (its time plus the timeframe).
 */
export function trialGrid(job: WireJob, meta: StrategyMeta, window: TimeWindow | null, periodMs: number): PeriodGrid {
  if (window !== null) return { start: window.start, end: window.end, periodMs };
  const { first, last } = tradedSpan(job);
  return { start: first, end: last + timeframeMsOf(job, meta), periodMs };
}
