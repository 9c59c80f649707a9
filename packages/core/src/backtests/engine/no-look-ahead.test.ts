import { afterAll, describe, expect, it } from 'vitest';
import { createIndicator } from '../../indicators/create-indicator.js';
import { createSandboxPool } from './backtest-pool.js';

/*
 * No look-ahead, through the whole engine (the bundled guest in a sandbox child): a strategy
 * records everything it can see on every candle (history at the run's timeframe and at two
 * higher ones, and indicators at each), and each value is checked against what had closed by
 * then, computed here from the raw candles. Two symbols, one with gaps (one of them the last
 * hour of a 4h candle) and shorter than the other, starting off the 4h grid.
 */
const H = 3_600_000;
const H4 = 4 * H;
const D = 24 * H;
const A = 'AAA/USDT:USDT';
const B = 'BBB/USDT:USDT';
const START = Date.UTC(2024, 0, 1, 1);

interface Row {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

function series(n: number, seed: number, skip: (i: number) => boolean): Row[] {
  let x = seed;
  const rnd = () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
  const rows: Row[] = [];
  let price = 100 + seed;
  for (let i = 0; i < n; i++) {
    const open = price;
    price = Math.max(1, price * (1 + (rnd() - 0.5) * 0.04));
    const row = {
      time: START + i * H,
      open,
      high: Math.max(open, price) * (1 + rnd() * 0.01),
      low: Math.min(open, price) * (1 - rnd() * 0.01),
      close: price,
      volume: 1 + rnd(),
    };
    if (!skip(i)) rows.push(row);
  }
  return rows;
}

/** Closed candles of `tf` built from `rows` (all of which have closed), by the documented rule. */
function closedBuckets(rows: Row[], tf: number): Row[] {
  const out: Row[] = [];
  let cur: Row | undefined;
  for (const r of rows) {
    const start = Math.floor(r.time / tf) * tf;
    if (cur !== undefined && cur.time !== start) {
      out.push(cur);
      cur = undefined;
    }
    const next: Row =
      cur === undefined
        ? { ...r, time: start }
        : { time: start, open: cur.open, high: Math.max(cur.high, r.high), low: Math.min(cur.low, r.low), close: r.close, volume: cur.volume + r.volume };
    cur = next;
    if (r.time + H >= start + tf) {
      out.push(next);
      cur = undefined;
    }
  }
  return out;
}

const SOURCE = `export const meta = { timeframe: '1h', timeframes: ['4h', '1d'], warmup: 30 };
export function onCandle(ctx, c) {
  for (const s of ctx.symbols) {
    const h1 = ctx.history(s, 5);
    const h4 = ctx.history(s, 4, { timeframe: '4h' });
    const d1 = ctx.history(s, 2, { timeframe: '1d' });
    const seen = {
      h1: Array.from(h1.time), h1c: Array.from(h1.close),
      h4: Array.from(h4.time), h4c: Array.from(h4.close), h4h: Array.from(h4.high), h4v: Array.from(h4.volume),
      d1: Array.from(d1.time),
      sma4: ctx.indicators.sma(s, 3, { timeframe: '4h' }),
      don4: ctx.indicators.donchian(s, 2, { timeframe: '4h' }).upper,
      rsi: ctx.indicators.rsi(s, 5),
      macd: ctx.indicators.macd(s, 3, 6, 2).histogram,
    };
    ctx.log(JSON.stringify({ t: c.time, s: c.symbol, of: s, seen }));
  }
}`;

describe('no look-ahead in backtests', () => {
  const pool = createSandboxPool({ size: 1 });
  afterAll(() => pool.close());

  it('history, higher-timeframe candles and indicators never show a candle that closes after the current one', { timeout: 120_000 }, async () => {
    const rowsA = series(24 * 12, 1, () => false);
    // B: starts later, misses 06:00 (the first hour of a bucket), 11:00 (the last hour of the 08:00 bucket), and ends early.
    const rowsB = series(24 * 10, 7, (i) => i < 5 || i === 5 + 5 || i === 10 + 5 || i === 40 || i === 41);
    const result = await pool.runBacktest({ source: SOURCE, candles: { [A]: rowsA, [B]: rowsB }, symbols: [A, B], timeframe: '1h' });
    const records = result.logs.map((l) => JSON.parse(l.message) as { t: number; s: string; of: string; seen: Record<string, number | number[]> });
    expect(records.length).toBeGreaterThan(800);
    const order = [A, B];
    let checked = 0;
    for (const rec of records) {
      {
        const s = rec.of;
        const rows = s === A ? rowsA : rowsB;
        // What of `s` had closed when the strategy ran: earlier candles, and one at the same time if `s` comes first.
        const visible = rows.filter((r) => r.time < rec.t || (r.time === rec.t && order.indexOf(s) <= order.indexOf(rec.s)));
        const v = rec.seen;
        expect(v.h1).toEqual(visible.slice(-5).map((r) => r.time));
        expect(v.h1c).toEqual(visible.slice(-5).map((r) => r.close));
        const h4 = closedBuckets(visible, H4).slice(-4);
        expect(v.h4).toEqual(h4.map((r) => r.time));
        expect(v.h4c).toEqual(h4.map((r) => r.close));
        expect(v.h4h).toEqual(h4.map((r) => r.high));
        for (let i = 0; i < h4.length; i++) expect(v.h4v as number[]).toHaveProperty([i], expect.closeTo(h4[i]!.volume, 9));
        for (const t of v.h4 as number[]) expect(t + H4).toBeLessThanOrEqual(rec.t + H);
        expect(v.d1).toEqual(
          closedBuckets(visible, D)
            .slice(-2)
            .map((r) => r.time),
        );
        const all4 = closedBuckets(visible, H4);
        const last3 = all4.slice(-3);
        if (last3.length < 3) expect(v.sma4).toBeNull();
        else expect(v.sma4 as number).toBeCloseTo(last3.reduce((a, r) => a + r.close, 0) / 3, 9);
        if (all4.length < 2) expect(v.don4).toBeNull();
        else expect(v.don4).toBe(Math.max(all4.at(-1)!.high, all4.at(-2)!.high));
        // Base-timeframe indicators over exactly the visible candles.
        const rsi = createIndicator({ kind: 'rsi', args: [5] });
        const macd = createIndicator({ kind: 'macd', args: [3, 6, 2] });
        const out = new Float64Array(3);
        let rsiV = Number.NaN;
        for (const r of visible) {
          rsi.update(r.high, r.low, r.close, r.volume, r.time, out);
          rsiV = out[0]!;
          macd.update(r.high, r.low, r.close, r.volume, r.time, out);
        }
        const nullable = (x: number) => (Number.isNaN(x) ? null : x);
        expect(v.rsi).toBe(nullable(rsiV));
        expect(v.macd).toBe(visible.length ? nullable(out[2]!) : null);
        checked++;
      }
    }
    expect(checked).toBe(records.length);
  });

  it('the first onCandle can read `warmup` candles', { timeout: 60_000 }, async () => {
    const rows = series(100, 3, () => false);
    const source = `export const meta = { timeframe: '1h', warmup: 25 };
      let first = true;
      export function onCandle(ctx, c) {
        if (first) ctx.log(String(ctx.history(c.symbol, 25).length), String(ctx.history(c.symbol, 100).time[0]));
        first = false;
      }`;
    const result = await pool.runBacktest({ source, candles: { [A]: rows }, startTime: rows[24]!.time, timeframe: '1h' });
    expect(result.logs[0]!.message).toBe(`25 ${rows[0]!.time}`);
  });
});
