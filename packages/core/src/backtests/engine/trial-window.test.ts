import { describe, expect, it } from 'vitest';
import { SandboxError } from '../../sandbox/sandbox-error.js';
import { type CandleInput, normalizeJob, type WireJob } from './backtest-job.js';
import { MINUTE, T0 } from './test-fixtures.js';
import { checkTrialWindow, MAX_TRIAL_PERIODS, type TrialWindow, trialGrid, windowJob } from './trial-window.js';

const A = 'AAA/USDT';
const B = 'BBB/USDT';

function rows(times: number[], base: number): CandleInput[] {
  return times.map((time, i) => ({ time, open: base + i, high: base + i + 1, low: base + i - 1, close: base + i + 0.5, volume: i + 1 }));
}

// A: 100 minutes from T0. B: starts 10 minutes later, misses minutes 40 to 59, ends at minute 79.
const minutes = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => T0 + (from + i) * MINUTE);
const candles = { [A]: rows(minutes(0, 100), 100), [B]: rows([...minutes(10, 40), ...minutes(60, 80)], 500) };
const funding = { [A]: { time: [T0 + 30 * MINUTE, T0 + 70 * MINUTE], rate: [0.001, -0.002] } };
const job = { source: 'x', candles, symbols: [A, B], funding };

/** The candles a caller would cut for `window` and back-test on their own. */
function cutByHand(window: TrialWindow): Record<string, CandleInput[]> {
  const cut: Record<string, CandleInput[]> = {};
  for (const [symbol, list] of Object.entries(candles)) {
    const before = list.filter((r) => (r.time as number) < window.start);
    const traded = list.filter((r) => (r.time as number) >= window.start && (r.time as number) < window.end);
    cut[symbol] = [...before.slice(Math.max(0, before.length - window.warmup)), ...traded];
  }
  return cut;
}

function withoutCandles(wire: WireJob): Omit<WireJob, 'candles' | 'history'> {
  const { candles: _candles, history: _history, ...rest } = wire;
  return rest;
}

describe('windowJob', () => {
  const full = normalizeJob(job);

  it.each([
    ['inside the data, enough warm-up', { start: T0 + 50 * MINUTE, end: T0 + 70 * MINUTE, warmup: 5 }],
    ['more warm-up than there are candles', { start: T0 + 12 * MINUTE, end: T0 + 30 * MINUTE, warmup: 50 }],
    ['no warm-up', { start: T0 + 20 * MINUTE, end: T0 + 21 * MINUTE, warmup: 0 }],
    ['B has no candle in the window (its gap)', { start: T0 + 41 * MINUTE, end: T0 + 59 * MINUTE, warmup: 3 }],
    ['past the end of the data', { start: T0 + 90 * MINUTE, end: T0 + 500 * MINUTE, warmup: 10 }],
    ['off the candle grid', { start: T0 + 33 * MINUTE + 1, end: T0 + 66 * MINUTE - 1, warmup: 2 }],
  ])('%s: the job normalizeJob makes of the candles cut by hand, traded from window.start', (_, window) => {
    const cut = windowJob(withoutCandles(full), full.candles, window);
    const alone = normalizeJob({ ...job, candles: cutByHand(window), startTime: window.start });
    expect(cut.candles).toEqual(alone.candles);
    expect(cut.history).toEqual(alone.history);
    expect(cut.startTime).toBe(window.start);
    // Nothing at or after the end: not a candle, not a funding event.
    for (const c of cut.candles) expect(c.time.every((t) => t < window.end)).toBe(true);
    for (const f of cut.funding) expect(f === null || f.time.every((t) => t < window.end)).toBe(true);
  });

  it('cuts views into the candles, not copies', () => {
    const cut = windowJob(withoutCandles(full), full.candles, { start: T0 + 50 * MINUTE, end: T0 + 70 * MINUTE, warmup: 5 });
    expect(cut.candles[0]!.close.buffer).toBe(full.candles[0]!.close.buffer);
    expect(cut.candles[0]!.close.byteOffset).toBe(45 * 8);
  });

  it('without a window: every candle, traded from the job startTime, as normalizeJob has it', () => {
    const from = normalizeJob({ ...job, startTime: T0 + 15 * MINUTE });
    const cut = windowJob(withoutCandles(from), from.candles, null);
    expect(cut.history).toEqual(from.history);
    expect(cut.candles).toEqual(from.candles);
    expect(cut.funding).toEqual(from.funding);
  });
});

describe('checkTrialWindow', () => {
  const full = normalizeJob(job);
  const refused = (window: TrialWindow | undefined, periodMs?: number) => {
    try {
      checkTrialWindow(full, window, periodMs);
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(SandboxError);
      expect((error as SandboxError).code).toBe('INVALID_JOB');
      return (error as SandboxError).message;
    }
  };

  it('accepts a window with candles to trade and a period length', () => {
    expect(refused({ start: T0, end: T0 + MINUTE, warmup: 0 }, MINUTE)).toBeNull();
    expect(refused(undefined, MINUTE)).toBeNull();
  });

  it('refuses a window without candles, backwards, or with a bad warm-up', () => {
    expect(refused({ start: T0 + 100 * MINUTE, end: T0 + 200 * MINUTE, warmup: 0 })).toMatch(/no candles/);
    expect(refused({ start: T0 + 10, end: T0 + 20, warmup: 0 })).toMatch(/no candles/);
    expect(refused({ start: T0 + MINUTE, end: T0 + MINUTE, warmup: 0 })).toMatch(/start before end/);
    expect(refused({ start: T0, end: Number.NaN, warmup: 0 })).toMatch(/start before end/);
    expect(refused({ start: T0, end: T0 + MINUTE, warmup: -1 })).toMatch(/warmup/);
    expect(refused({ start: T0, end: T0 + MINUTE, warmup: 1.5 })).toMatch(/warmup/);
  });

  it('refuses a period length that is not a positive whole number, or that gives too many periods', () => {
    expect(refused(undefined, 0)).toMatch(/periodMs/);
    expect(refused(undefined, 1.5)).toMatch(/periodMs/);
    expect(refused({ start: T0, end: T0 + MAX_TRIAL_PERIODS + 1, warmup: 0 }, 1)).toMatch(/more than/);
    expect(refused({ start: T0, end: T0 + MAX_TRIAL_PERIODS, warmup: 0 }, 1)).toBeNull();
    expect(refused(undefined, 1)).toMatch(/more than/);
  });
});

describe('trialGrid', () => {
  const full = normalizeJob({ ...job, startTime: T0 + 5 * MINUTE });
  const meta = { params: {} };

  it('over the window when there is one', () => {
    expect(trialGrid(full, meta, { start: 5, end: 50 }, 7)).toEqual({ start: 5, end: 50, periodMs: 7 });
  });

  it('without one: from the first traded candle to the last close (timeframe of the job, the strategy, else the smallest step)', () => {
    const end = T0 + 100 * MINUTE;
    expect(trialGrid(full, meta, null, MINUTE)).toEqual({ start: T0 + 5 * MINUTE, end, periodMs: MINUTE });
    expect(trialGrid({ ...full, timeframe: '1h' }, meta, null, MINUTE).end).toBe(end - MINUTE + 3_600_000);
    expect(trialGrid(full, { ...meta, timeframe: '5m' }, null, MINUTE).end).toBe(end - MINUTE + 5 * MINUTE);
  });
});
