import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from './backtest-pool.js';
import { candlesOf, flat, MINUTE, T0 } from './test-fixtures.js';

const pool = createSandboxPool({ size: 1 });
afterAll(() => pool.close());

const N = 3000;
const closes = Array.from({ length: N }, (_, i) => 100 + 10 * Math.sin(i / 37) + (i % 13) / 7);
const rows = closes.map((c) => [c, c + 1, c - 1, c] as [number, number, number, number]);

function sma(i: number, p: number) {
  if (i + 1 < p) return NaN;
  let s = 0;
  for (let k = i - p + 1; k <= i; k++) s += closes[k]!;
  return s / p;
}
function ema(i: number, p: number) {
  if (i + 1 < p) return NaN;
  let v = sma(p - 1, p);
  for (let k = p; k <= i; k++) v = v + (2 / (p + 1)) * (closes[k]! - v);
  return v;
}
function bollingerUpper(i: number, p: number, m: number) {
  const mean = sma(i, p);
  let sq = 0;
  for (let k = i - p + 1; k <= i; k++) sq += (closes[k]! - mean) ** 2;
  return mean + m * Math.sqrt(sq / p);
}

describe('indicators inside a run', () => {
  it('match independent computations across batches, when first asked for mid-run, and after warm-up history', async () => {
    const startIndex = 100; // candles before this are history
    const source = `export function onCandle(ctx, c) {
      const i = (c.time - ${T0}) / ${MINUTE};
      const a = ctx.indicators.sma(c.symbol, 5);
      if (i % 97 === 0 || i === ${N - 1}) {
        const parts = [i, a];
        if (i >= 700) parts.push(ctx.indicators.ema(c.symbol, 7));
        if (i >= 1500) parts.push(ctx.indicators.bollinger(c.symbol, 10, 2).upper);
        ctx.log(parts.join(' '));
      }
    }`;
    const r = await pool.runBacktest({ source, candles: { 'BTC/USDT': candlesOf(rows) }, startTime: T0 + startIndex * MINUTE });
    expect(r.logs.length).toBeGreaterThan(20);
    for (const line of r.logs) {
      const [i, a, e, b] = line.message.split(' ').map(Number) as [number, number, number?, number?];
      expect(i).toBeGreaterThanOrEqual(startIndex);
      expect(a).toBeCloseTo(sma(i, 5), 9);
      if (i >= 700) expect(e).toBeCloseTo(ema(i, 7), 9);
      if (i >= 1500) expect(b).toBeCloseTo(bollingerUpper(i, 10, 2), 9);
    }
  });

  it('answers NaN before an indicator has enough candles, and reads the values of other symbols as of their last close', async () => {
    const source = `export function onCandle(ctx, c) { ctx.log(c.symbol, ctx.indicators.sma('AAA/USDT', 2), ctx.indicators.rsi('BBB/USDT', 2)); }`;
    const mk = (start: number, xs: number[]) => xs.map((x, i) => ({ time: T0 + (start + 2 * i) * MINUTE, open: x, high: x, low: x, close: x, volume: 1 }));
    const r = await pool.runBacktest({
      source,
      symbols: ['AAA/USDT', 'BBB/USDT'],
      candles: { 'AAA/USDT': mk(0, [1, 3, 5]), 'BBB/USDT': mk(1, [10, 11, 9]) },
    });
    expect(r.logs.map((l) => l.message)).toEqual([
      'AAA/USDT NaN NaN',
      'BBB/USDT NaN NaN',
      'AAA/USDT 2 NaN',
      'BBB/USDT 2 NaN',
      'AAA/USDT 4 NaN',
      'BBB/USDT 4 33.33333333333333',
    ]);
  });

  it('read a higher timeframe through a kept options object changed between calls, or a new one, for two symbols, as computed independently', async () => {
    const n = 400;
    const closeOf = (sym: number, i: number) => 100 + sym * 50 + 10 * Math.sin(i / (11 + sym * 6)) + (i % 7) / 3;
    const mk = (sym: number) => candlesOf(Array.from({ length: n }, (_, i) => flat(closeOf(sym, i))));
    /** The close of each closed bucket of `m` minutes as of minute i (a bucket closes with its last minute), then an SMA or EMA of `p` of them. */
    const bucketCloses = (sym: number, m: number, i: number) => Array.from({ length: Math.floor((i + 1) / m) }, (_, k) => closeOf(sym, k * m + m - 1));
    const smaOf = (xs: number[], p: number) => (xs.length < p ? NaN : xs.slice(-p).reduce((a, b) => a + b, 0) / p);
    const emaOf = (xs: number[], p: number) => {
      if (xs.length < p) return NaN;
      let v = smaOf(xs.slice(0, p), p);
      for (let k = p; k < xs.length; k++) v += (2 / (p + 1)) * (xs[k]! - v);
      return v;
    };
    // One object whose timeframe changes between two calls in a row, the same object for the other symbol, a new object, and the run's own timeframe named.
    const source = `export const meta = { timeframes: ['5m', '15m'] };
      const OPT = { timeframe: '5m' };
      export function onCandle(ctx, c) {
        const other = c.symbol === 'AAA/USDT' ? 'BBB/USDT' : 'AAA/USDT';
        const i = (c.time - ${T0}) / ${MINUTE};
        OPT.timeframe = '5m';
        const a5 = ctx.indicators.sma(c.symbol, 3, OPT);
        OPT.timeframe = '15m';
        const a15 = ctx.indicators.sma(c.symbol, 3, OPT);
        const o15 = ctx.indicators.sma(other, 3, OPT);
        const e15 = ctx.indicators.ema(other, 4, { timeframe: '15m' });
        const d = ctx.indicators.sma(c.symbol, 3, { timeframe: '1m' });
        ctx.log([c.symbol, i, a5, a15, o15, e15, d].join(' '));
      }`;
    const r = await pool.runBacktest({ source, symbols: ['AAA/USDT', 'BBB/USDT'], candles: { 'AAA/USDT': mk(0), 'BBB/USDT': mk(1) }, timeframe: '1m' });
    expect(r.logs).toHaveLength(2 * n);
    let compared = 0;
    for (const line of r.logs) {
      const [symbol, iText, ...got] = line.message.split(' ') as [string, string, ...string[]];
      const i = Number(iText);
      const sym = symbol === 'AAA/USDT' ? 0 : 1;
      // The other symbol has closed minute i too when it comes first in the run, else minute i - 1.
      const otherSeen = sym === 0 ? i - 1 : i;
      const expected = [
        smaOf(bucketCloses(sym, 5, i), 3),
        smaOf(bucketCloses(sym, 15, i), 3),
        otherSeen < 0 ? NaN : smaOf(bucketCloses(1 - sym, 15, otherSeen), 3),
        otherSeen < 0 ? NaN : emaOf(bucketCloses(1 - sym, 15, otherSeen), 4),
        smaOf(bucketCloses(sym, 1, i), 3),
      ];
      expected.forEach((want, k) => {
        if (Number.isNaN(want)) expect(got[k], line.message).toBe('NaN');
        else {
          expect(Number(got[k]), line.message).toBeCloseTo(want, 9);
          compared++;
        }
      });
    }
    expect(compared).toBeGreaterThan(3000);
  });

  it('fails with a clear message for a bad period', async () => {
    const error = await pool
      .runBacktest({ source: `export function onCandle(ctx, c) { ctx.indicators.sma(c.symbol, 2.5); }`, candles: { 'BTC/USDT': candlesOf(rows.slice(0, 3)) } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'STRATEGY_ERROR', message: expect.stringMatching(/sma period must be an integer/) });
  });
});
