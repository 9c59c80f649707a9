import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from './backtest-pool.js';
import { candlesOf, MINUTE, T0 } from './test-fixtures.js';

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

  it('fails with a clear message for a bad period', async () => {
    const error = await pool
      .runBacktest({ source: `export function onCandle(ctx, c) { ctx.indicators.sma(c.symbol, 2.5); }`, candles: { 'BTC/USDT': candlesOf(rows.slice(0, 3)) } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'STRATEGY_ERROR', message: expect.stringMatching(/sma period must be an integer/) });
  });
});
