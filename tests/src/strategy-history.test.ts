import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import { startTestService, type TestService } from './harness/in-process.js';
import { waitFinished } from './harness/wait-backtest.js';

/*
 * Strategies that read past candles (`ctx.history`) and a higher timeframe (`meta.timeframes`),
 * over HTTP on the example service: their trades are checked against the same rules computed
 * here from the candles the service serves (market orders fill at the next candle's open; an
 * open position closes at the last close).
 */
const SYMBOL = 'BTC/USDT:USDT';
const RANGE = { startDate: '2025-01-01', endDate: '2025-02-28' };
const H = 3_600_000;
const H4 = 4 * H;

const DONCHIAN = `export const meta = { timeframe: '1h', warmup: 21 };
export function onCandle(ctx, c) {
  const h = ctx.history(c.symbol, 21);
  if (h.close[20] !== c.close) throw new Error('the current candle is the last of the history');
  let hi = -Infinity;
  let lo = Infinity;
  for (let i = 0; i < 20; i++) hi = Math.max(hi, h.high[i]);
  for (let i = 10; i < 20; i++) lo = Math.min(lo, h.low[i]);
  const pos = ctx.position(c.symbol);
  if (!pos && c.close > hi) ctx.buy(c.symbol, { quantity: 0.01 });
  else if (pos && c.close < lo) ctx.close(c.symbol);
}`;

const TREND = `export const meta = { timeframe: '1h', timeframes: ['4h'], warmup: 48 };
export function onCandle(ctx, c) {
  const trend = ctx.indicators.ema(c.symbol, 6, { timeframe: '4h' });
  const last4h = ctx.history(c.symbol, 1, { timeframe: '4h' });
  const up = last4h.length === 1 && last4h.close[0] > trend;
  const fast = ctx.indicators.sma(c.symbol, 5);
  const slow = ctx.indicators.sma(c.symbol, 20);
  const pos = ctx.position(c.symbol);
  if (!pos && up && fast > slow) ctx.buy(c.symbol, { quantity: 0.01 });
  else if (pos && (!up || fast < slow)) ctx.close(c.symbol);
}`;

interface Candle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
}

async function candlesFrom(client: StratboxClient, startDate: string): Promise<Candle[]> {
  const out: Candle[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.marketData.candles({
      query: { symbol: SYMBOL, timeframe: '1h', startDate, endDate: RANGE.endDate, limit: 500, ...(cursor ? { cursor } : {}) },
    });
    out.push(...page.candles.map((c) => ({ ...c, time: Date.parse(c.time) })));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

/** Runs a long-only signal (decided on candle i's close, seeing `pos`) under next-open market fills; answers [entryTime, entryPrice, exitTime, exitPrice]. */
function simulate(candles: Candle[], first: number, signal: (i: number, pos: boolean) => 'buy' | 'close' | null) {
  const trades: Array<[number, number, number, number]> = [];
  let entry: [number, number] | null = null;
  let pending: 'buy' | 'close' | null = null;
  for (let i = first; i < candles.length; i++) {
    const c = candles[i]!;
    if (pending === 'buy') entry = [c.time, c.open];
    if (pending === 'close' && entry) {
      trades.push([entry[0], entry[1], c.time, c.open]);
      entry = null;
    }
    pending = signal(i, entry !== null);
  }
  const last = candles.at(-1)!;
  if (entry) trades.push([entry[0], entry[1], last.time, last.close]);
  return trades;
}

const sma = (xs: number[], n: number) => (xs.length < n ? Number.NaN : xs.slice(-n).reduce((a, b) => a + b, 0) / n);

/** EMA seeded with the SMA of the first `n` values, alpha 2 / (n + 1): its value after all of `xs`. */
function ema(xs: number[], n: number): number {
  if (xs.length < n) return Number.NaN;
  let v = xs.slice(0, n).reduce((a, b) => a + b, 0) / n;
  for (let i = n; i < xs.length; i++) v += (2 / (n + 1)) * (xs[i]! - v);
  return v;
}

describe('strategies with ctx.history and higher timeframes over HTTP', () => {
  let service: TestService;
  let client: StratboxClient;

  beforeAll(async () => {
    service = await startTestService();
    client = (await service.newUser('historian')).client;
  }, 60_000);
  afterAll(() => service?.close());

  async function tradesOf(source: string) {
    const strategyId = (await client.strategies.create({ body: { name: 'history', source } })).id;
    const created = await client.backtests.create({ body: { strategyId, symbols: [SYMBOL], ...RANGE, timeframe: '1h', fees: { maker: 0, taker: 0 } } });
    const done = await waitFinished(client, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    return done.trades!.map((t) => [Date.parse(t.entryTime), t.entryPrice, Date.parse(t.exitTime), t.exitPrice]);
  }

  /** Same trades: times exactly, prices to 1e-12 relative (the candles route and the trades round-trip through JSON apart). */
  function expectSameTrades(actual: number[][], expected: number[][]) {
    expect(actual.map(([entry, , exit]) => [entry, exit])).toEqual(expected.map(([entry, , exit]) => [entry, exit]));
    actual.forEach((t, i) => {
      for (const k of [1, 3]) expect(Math.abs(t[k]! - expected[i]![k]!) / expected[i]![k]!).toBeLessThan(1e-12);
    });
  }

  it('a Donchian breakout on ctx.history trades where the channel says', { timeout: 180_000 }, async () => {
    const candles = await candlesFrom(client, '2024-12-30');
    const first = candles.findIndex((c) => c.time >= Date.parse(RANGE.startDate));
    const expected = simulate(candles, first, (i, pos) => {
      const hi = Math.max(...candles.slice(i - 20, i).map((c) => c.high));
      const lo = Math.min(...candles.slice(i - 10, i).map((c) => c.low));
      if (!pos && candles[i]!.close > hi) return 'buy';
      if (pos && candles[i]!.close < lo) return 'close';
      return null;
    });
    expect(expected.length).toBeGreaterThan(5);
    expectSameTrades(await tradesOf(DONCHIAN), expected);
  });

  it('1h entries in the direction of the 4h trend trade on 4h candles only once they have closed', { timeout: 180_000 }, async () => {
    const all = await candlesFrom(client, '2024-12-28');
    const start = all.findIndex((c) => c.time >= Date.parse(RANGE.startDate));
    // The run gets exactly warmup - 1 = 47 candles before its start: indicators begin there.
    const candles = all.slice(start - 47);
    const first = 47;
    const expected = simulate(candles, first, (i, pos) => {
      const seen = candles.slice(0, i + 1);
      const closed4h: number[] = [];
      let bucket = Number.NaN;
      let close = 0;
      for (const c of seen) {
        const b = Math.floor(c.time / H4) * H4;
        if (b !== bucket && !Number.isNaN(bucket)) closed4h.push(close);
        bucket = b;
        close = c.close;
        if (c.time + H === b + H4) {
          closed4h.push(close);
          bucket = Number.NaN;
        }
      }
      const up = closed4h.length > 0 && closed4h.at(-1)! > ema(closed4h, 6);
      const closes = seen.map((c) => c.close);
      const fast = sma(closes, 5);
      const slow = sma(closes, 20);
      if (!pos && up && fast > slow) return 'buy';
      if (pos && (!up || fast < slow)) return 'close';
      return null;
    });
    expect(expected.length).toBeGreaterThan(5);
    expectSameTrades(await tradesOf(TREND), expected);
  });

  it('refuses a higher timeframe that is not higher than the run timeframe', { timeout: 60_000 }, async () => {
    const strategyId = (await client.strategies.create({ body: { name: 'bad tf', source: TREND } })).id;
    const error = await client.backtests
      .create({ body: { strategyId, symbols: [SYMBOL], ...RANGE, timeframe: '4h' } })
      .then(() => null)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', message: expect.stringMatching(/meta.timeframes lists 4h/) });
  });
});
