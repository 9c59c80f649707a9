import { afterAll, describe, expect, it } from 'vitest';
import { periodReturns } from './period-returns.js';
import type { CandleInput } from './backtest-job.js';
import { createSandboxPool, type TrialOutcome, type TrialWindow } from './backtest-pool.js';

/*
 * runTrials over a window of the candles (walk-forward folds): each trial answers what a
 * backtest of the candles cut by hand answers, the strategy never sees a candle at or after the
 * window's end, and period returns are those of that backtest's equity curve.
 */
const H = 3_600_000;
const A = 'AAA/USDT:USDT';
const B = 'BBB/USDT:USDT';
const START = Date.UTC(2024, 0, 1, 1); // off the 4h grid
// Ends at 19:00, inside the 16:00 4h candle: the window's last 4h candle is never complete.
const WINDOW: TrialWindow = { start: START + 300 * H, end: START + 450 * H, warmup: 30 };

/** Hourly candles; from `spikeFrom` on, prices 100 times higher, so that a leak of them shows in any indicator. */
function series(n: number, seed: number, skip: (i: number) => boolean, spikeFrom: number): CandleInput[] {
  let price = 100 + seed;
  const out: CandleInput[] = [];
  for (let i = 0; i < n; i++) {
    const open = price;
    price = Math.max(1, price * (1 + 0.02 * Math.sin(i * 0.37 + seed) + 0.01 * Math.cos(i * 1.3)));
    const k = i >= spikeFrom ? 100 : 1;
    if (!skip(i))
      out.push({
        time: START + i * H,
        open: open * k,
        high: Math.max(open, price) * 1.01 * k,
        low: Math.min(open, price) * 0.99 * k,
        close: price * k,
        volume: 1 + (i % 7),
      });
  }
  return out;
}

const candles = {
  [A]: series(600, 1, () => false, 450),
  // B starts later, misses some hours (one of them the window's first), and ends inside the spike.
  [B]: series(520, 7, (i) => i < 20 || (i >= 100 && i < 105) || i === 300, 450),
};

/** What the strategy sees on every candle, logged: history at 1h and 4h, indicators at both. */
const WATCHER = `export const meta = { timeframe: '1h', timeframes: ['4h'], warmup: 30, params: { fast: { type: 'int', default: 5, min: 1 } } };
export function onCandle(ctx, c) {
  const seen = ctx.symbols.map((s) => {
    const h1 = ctx.history(s, 1000);
    const h4 = ctx.history(s, 300, { timeframe: '4h' });
    return {
      s, n1: h1.time.length, last1: h1.time[h1.time.length - 1] ?? null, last4: h4.time[h4.time.length - 1] ?? null,
      max1: h1.high.length ? Math.max(...h1.high) : null, max4: h4.high.length ? Math.max(...h4.high) : null,
      sma: ctx.indicators.sma(s, ctx.params.fast), sma4: ctx.indicators.sma(s, 3, { timeframe: '4h' }),
      rsi: ctx.indicators.rsi(s, 14), upper4: ctx.indicators.donchian(s, 5, { timeframe: '4h' }).upper,
    };
  });
  ctx.log(JSON.stringify({ t: c.time, now: Date.now(), s: c.symbol, seen }));
  const fast = ctx.indicators.sma(c.symbol, ctx.params.fast);
  const slow = ctx.indicators.sma(c.symbol, 20);
  if (fast > slow && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.3 });
  if (fast < slow && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;

interface Seen {
  t: number;
  now: number;
  s: string;
  seen: Array<{ s: string; last1: number | null; last4: number | null; max1: number | null; max4: number | null }>;
}

/** The candles a caller cuts for `window`: those before its end, with at most `warmup` per symbol before its start. */
function cut(window: TrialWindow): Record<string, CandleInput[]> {
  const out: Record<string, CandleInput[]> = {};
  for (const [symbol, rows] of Object.entries(candles)) {
    const before = rows.filter((r) => (r.time as number) < window.start);
    out[symbol] = [
      ...before.slice(Math.max(0, before.length - window.warmup)),
      ...rows.filter((r) => (r.time as number) >= window.start && (r.time as number) < window.end),
    ];
  }
  return out;
}

function completed(trial: TrialOutcome | undefined) {
  if (!trial?.ok) throw new Error(`the trial failed: ${trial?.ok === false ? trial.error.message : 'no trial'}`);
  return trial;
}

describe('runTrials over a window', () => {
  const pool = createSandboxPool({ size: 1, cpuTimeMs: 60_000 });
  afterAll(() => pool.close());
  const job = { source: WATCHER, candles, symbols: [A, B], timeframe: '1h' as const };

  it('never shows the strategy a candle at or after the end, and sees on every candle what a backtest of the cut candles sees', {
    timeout: 120_000,
  }, async () => {
    const sets = [{ fast: '4' }, { fast: '9' }];
    const trials = await pool.runTrials(job, sets, { window: WINDOW, logs: true, periods: { periodMs: 4 * H } });
    // The whole run, for contrast: it does see the spike after the window, so the checks below can fail.
    const [whole] = await pool.runTrials(job, [sets[0]!], { logs: true });
    expect(completed(whole).logs!.some((l) => l.time >= WINDOW.end)).toBe(true);

    for (const [k, params] of sets.entries()) {
      const trial = completed(trials[k]);
      const alone = await pool.runBacktest({ ...job, candles: cut(WINDOW), startTime: WINDOW.start, params });
      expect(trial.metrics).toEqual(alone.metrics);
      expect(trial.trades).toBe(alone.trades.length);
      expect(trial.trades).toBeGreaterThan(0);
      expect(trial.logs!.map((l) => l.message)).toEqual(alone.logs.map((l) => l.message));

      const records = trial.logs!.map((l) => JSON.parse(l.message) as Seen);
      expect(records[0]!.t).toBe(WINDOW.start); // A's first hour; B has none then
      expect(records.at(-1)!.t).toBe(WINDOW.end - H);
      for (const r of records) {
        expect(r.t).toBeLessThan(WINDOW.end);
        expect(r.now).toBeLessThan(WINDOW.end);
        for (const v of r.seen) {
          expect(v.last1 ?? 0).toBeLessThan(WINDOW.end);
          expect((v.last4 ?? 0) + 4 * H).toBeLessThanOrEqual(WINDOW.end);
          expect(v.max1 ?? 0).toBeLessThan(1000); // the spiked candles are all past 10,000
          expect(v.max4 ?? 0).toBeLessThan(1000);
        }
      }

      // Period returns: those of the backtest's equity curve on the 4h grid over the window.
      const grid = { start: WINDOW.start, end: WINDOW.end, periodMs: 4 * H };
      expect(trial.returns).toEqual(periodReturns(alone.series.times, alone.series.equity, 10_000, grid));
      expect(trial.returns).toHaveLength(Math.ceil(150 / 4));
      const compounded = trial.returns!.reduce((product, r) => product * (1 + r), 1);
      expect(compounded - 1).toBeCloseTo(alone.metrics.totalReturn ?? Number.NaN, 9);
    }
  });

  it('without a window, period returns run from the first traded candle to the last close', { timeout: 60_000 }, async () => {
    const one = { source: WATCHER, candles: { [A]: candles[A]! }, startTime: START + 100 * H };
    const [trial] = await pool.runTrials(one, [{ fast: '6' }], { periods: { periodMs: 24 * H } });
    const alone = await pool.runBacktest({ ...one, params: { fast: '6' } });
    // meta.timeframe is 1h: the last candle (hour 599) closes at hour 600.
    const grid = { start: START + 100 * H, end: START + 600 * H, periodMs: 24 * H };
    expect(completed(trial).returns).toEqual(periodReturns(alone.series.times, alone.series.equity, 10_000, grid));
    expect(completed(trial).returns).toHaveLength(Math.ceil(500 / 24));
    expect(completed(trial).logs).toBeUndefined();
  });

  it('a seed per trial: each trial draws what a backtest with its seed draws', { timeout: 60_000 }, async () => {
    const source = `let n = 0;
      export function onCandle(ctx, c) { if (++n % 50 === 0) ctx.log(String(Math.random()) + ' ' + String(ctx.random())); }`;
    const small = { source, candles: { [A]: candles[A]! } };
    const trials = await pool.runTrials(small, [{}, {}, {}], {
      seeds: [7, 7, 8],
      logs: true,
      window: { start: START + 10 * H, end: START + 400 * H, warmup: 0 },
    });
    const logsOf = (t: TrialOutcome | undefined) => completed(t).logs!.map((l) => l.message);
    expect(logsOf(trials[0])).toEqual(logsOf(trials[1]));
    expect(logsOf(trials[2])).not.toEqual(logsOf(trials[0]));
    for (const [k, seed] of [7, 7, 8].entries()) {
      const alone = await pool.runBacktest({ ...small, candles: { [A]: candles[A]!.slice(10, 400) }, seed });
      expect(logsOf(trials[k])).toEqual(alone.logs.map((l) => l.message));
    }
  });

  it('refuses a window without candles, and seeds that do not match the parameter sets, before any child runs', async () => {
    await expect(pool.runTrials(job, [{}], { window: { start: START + 900 * H, end: START + 901 * H, warmup: 0 } })).rejects.toMatchObject({
      code: 'INVALID_JOB',
    });
    await expect(pool.runTrials(job, [{}, {}], { seeds: [1] })).rejects.toMatchObject({ code: 'INVALID_JOB', message: expect.stringMatching(/seeds/) });
  });
});
