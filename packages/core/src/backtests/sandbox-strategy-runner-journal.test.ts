import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from '../index.js';
import type { CandleSeries } from '../ports/market-data.js';
import type { BacktestRunInput } from '../ports/strategy-runner.js';
import { createSandboxStrategyRunner } from './sandbox-strategy-runner.js';

/*
 * The order journal of a backtest (`journal: true`), through the strategy runner, the process
 * pool and a real child: a strategy places a known sequence of orders, and the journal tells for
 * each the candle it was placed at, from which call, and its outcome, consistent with the trades.
 */

const pool = createSandboxPool({ size: 1, cpuTimeMs: 20_000 });
const runner = createSandboxStrategyRunner(pool);
afterAll(() => runner.close());

const SYM = 'BTC/USDT:USDT';
const T0 = Date.UTC(2025, 0, 1);
const H = 3_600_000;
const at = (i: number) => T0 + i * H;
const TAKER = 0.001;
const SLIP = 0.001;

/* [open, high, low, close] per hour. */
const ROWS: Array<[number, number, number, number]> = [
  [100, 101, 99, 100], // 0: onCandle buys 1 at market with a stop-loss at 90, and places a limit buy at 50
  [100, 102, 98, 101], // 1: the buy fills at the open (+ slippage); onOrder places a reduce-only limit sell at 200; onCandle cancels the limit buy
  [101, 101, 85, 88], // 2: the low crosses 90: the engine's stop-loss closes the position
  [88, 89, 87, 88],
  [88, 89, 87, 88], // 4: onCandle buys 2 at market
  [90, 91, 89, 90], // 5: fills at the open (+ slippage)
  [90, 91, 89, 92], // 6: the last candle: the end of the run closes the position at 92
];

const SOURCE = `export const meta = { timeframe: '1h' };
let i = 0;
let never = null;
export function onCandle(ctx, c) {
  if (i === 0) {
    ctx.buy(c.symbol, { quantity: 1, stopLoss: 90, tag: 'entry' });
    never = ctx.buy(c.symbol, { type: 'limit', price: 50, quantity: 1, tag: 'never' });
  }
  if (i === 1) ctx.cancel(never);
  if (i === 4) ctx.buy(c.symbol, { quantity: 2 });
  i++;
}
export function onOrder(ctx, e) {
  if (e.tag === 'entry' && e.status === 'filled') ctx.sell(e.symbol, { type: 'limit', price: 200, quantity: 1, reduceOnly: true, tag: 'tp' });
}`;

function series(): CandleSeries {
  const col = (k: number) => Float64Array.from(ROWS, (r) => r[k]!);
  return {
    symbol: SYM,
    timeframe: '1h',
    length: ROWS.length,
    time: Float64Array.from(ROWS, (_, i) => at(i)),
    open: col(0),
    high: col(1),
    low: col(2),
    close: col(3),
    volume: Float64Array.from(ROWS, () => 1),
  };
}

const input = (journal?: boolean): BacktestRunInput => ({
  source: SOURCE,
  series: [series()],
  fees: { maker: 0, taker: TAKER },
  leverage: 1,
  slippage: SLIP,
  initialCapital: 10_000,
  params: {},
  marketType: 'LINEAR',
  seed: 1,
  ...(journal === undefined ? {} : { journal }),
});

const run = (job: BacktestRunInput) => runner.run(job, { signal: new AbortController().signal, onProgress: () => {} });

interface TradeOut {
  entryPrice: number;
  exitPrice: number;
  fees: number;
  exitReason: string;
}

describe('the order journal of a backtest', () => {
  it('lists each order with the candle it was placed at, its source and its outcome, matching the trades', { timeout: 60_000 }, async () => {
    const out = await run(input(true));
    const trades = out.trades as unknown as TradeOut[];
    expect(trades.map((t) => t.exitReason)).toEqual(['stopLoss', 'end']);
    const journal = out.journal!;
    expect(out.journalTruncated).toBe(false);
    const common = { symbol: SYM, size: null };
    expect(journal).toEqual([
      {
        ...common,
        id: 'o1',
        candleTime: at(0),
        source: 'candle',
        side: 'buy',
        type: 'market',
        quantity: 1,
        price: null,
        reduceOnly: false,
        closeAll: false,
        tag: 'entry',
        status: 'filled',
        fillTime: at(1),
        fillPrice: trades[0]!.entryPrice,
        fillQuantity: 1,
        fee: expect.closeTo(trades[0]!.entryPrice * TAKER, 12),
      },
      {
        ...common,
        id: 'o2',
        candleTime: at(0),
        source: 'candle',
        side: 'buy',
        type: 'limit',
        quantity: 1,
        price: 50,
        reduceOnly: false,
        closeAll: false,
        tag: 'never',
        status: 'cancelled',
        fillTime: null,
        fillPrice: null,
        fillQuantity: 0,
        fee: 0,
      },
      {
        ...common,
        id: 'o3',
        candleTime: at(1),
        source: 'order',
        side: 'sell',
        type: 'limit',
        quantity: 1,
        price: 200,
        reduceOnly: true,
        closeAll: false,
        tag: 'tp',
        status: 'open',
        fillTime: null,
        fillPrice: null,
        fillQuantity: 0,
        fee: 0,
      },
      {
        ...common,
        id: 'x1',
        candleTime: at(2),
        source: 'order',
        side: 'sell',
        type: 'stopLoss',
        quantity: 1,
        price: null,
        reduceOnly: true,
        closeAll: true,
        tag: null,
        status: 'filled',
        fillTime: at(2),
        fillPrice: trades[0]!.exitPrice,
        fillQuantity: 1,
        fee: expect.closeTo(trades[0]!.exitPrice * TAKER, 12),
      },
      {
        ...common,
        id: 'o4',
        candleTime: at(4),
        source: 'candle',
        side: 'buy',
        type: 'market',
        quantity: 2,
        price: null,
        reduceOnly: false,
        closeAll: false,
        tag: null,
        status: 'filled',
        fillTime: at(5),
        fillPrice: trades[1]!.entryPrice,
        fillQuantity: 2,
        fee: expect.closeTo(2 * trades[1]!.entryPrice * TAKER, 12),
      },
      {
        ...common,
        id: 'x2',
        candleTime: at(6),
        source: 'order',
        side: 'sell',
        type: 'end',
        quantity: 2,
        price: null,
        reduceOnly: true,
        closeAll: true,
        tag: null,
        status: 'filled',
        fillTime: at(6),
        fillPrice: 92,
        fillQuantity: 2,
        fee: expect.closeTo(2 * 92 * TAKER, 12),
      },
    ]);
    // Slippage is in the fill prices: against the buyer at the open, against the seller at the stop.
    expect(trades[0]!.entryPrice).toBeCloseTo(100 * (1 + SLIP), 12);
    expect(trades[0]!.exitPrice).toBeCloseTo(90 * (1 - SLIP), 12);
    expect(trades[1]!.entryPrice).toBeCloseTo(90 * (1 + SLIP), 12);
    // Every fee of the run is in the journal: the orders' fees add up to the trades'.
    const journalFees = journal.reduce((sum, o) => sum + o.fee, 0);
    expect(journalFees).toBeCloseTo(
      trades.reduce((sum, t) => sum + t.fees, 0),
      9,
    );
  });

  it('is absent unless asked for, and the run is the same without it', { timeout: 60_000 }, async () => {
    const [plain, off, on] = await Promise.all([run(input()), run(input(false)), run(input(true))]);
    expect('journal' in plain).toBe(false);
    expect('journalTruncated' in plain).toBe(false);
    expect('journal' in off).toBe(false);
    expect(plain.trades).toEqual(on.trades);
    expect(plain.metrics).toEqual(on.metrics);
    expect(plain.equityCurve).toEqual(on.equityCurve);
    // With the journal, the equity at every candle close too, never downsampled (the drift report reads it at given candles).
    expect('equitySeries' in plain).toBe(false);
    const series = on.equitySeries!;
    expect(series.times.length).toBe(series.equity.length);
    expect(Array.from(series.times)).toEqual(on.equityCurve.map((p) => Date.parse(p.time)));
    expect(Array.from(series.equity)).toEqual(on.equityCurve.map((p) => p.equity));
  });
});
