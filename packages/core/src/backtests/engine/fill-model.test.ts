import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from './backtest-pool.js';
import type { BacktestJob } from './backtest-job.js';
import { at, candlesOf, flat, MINUTE, T0 } from './test-fixtures.js';

const pool = createSandboxPool({ size: 2, cpuTimeMs: 5000 });
afterAll(() => pool.close());

type Row = [number, number, number, number];
const FEES = { maker: 0.001, taker: 0.002 };

function run(source: string, rows: Row[], extra: Partial<BacktestJob> = {}) {
  return pool.runBacktest({ source, candles: { 'BTC/USDT:USDT': candlesOf(rows) }, fees: FEES, slippage: 0.01, ...extra });
}

/** A strategy that places `order` on the first candle only. */
function onFirst(order: string, more = '') {
  return `let done = false;
export function onCandle(ctx, c) { if (!done) { done = true; ${order}; } ${more} }`;
}

describe('fill model', () => {
  it('fills a market buy at the next open, moved up by slippage, with the taker fee; closes at the last close', async () => {
    const r = await run(onFirst(`ctx.buy(c.symbol, { quantity: 2 })`), [flat(100), [110, 112, 108, 111], flat(120)]);
    expect(r.trades).toHaveLength(1);
    const t = r.trades[0]!;
    expect(t).toMatchObject({ side: 'long', entryTime: at(1), exitTime: at(2), exitPrice: 120, quantity: 2, exitReason: 'end' });
    expect(t.entryPrice).toBeCloseTo(111.1, 10); // 110 * 1.01
    expect(t.fees).toBeCloseTo(2 * 111.1 * 0.002 + 2 * 120 * 0.002, 10);
    expect(t.pnl).toBeCloseTo(2 * (120 - 111.1) - 0.9244, 10);
    // Marked at every close: before the fill, after the fill (close 111), after the end close.
    expect(r.equityCurve.map((p) => p.time)).toEqual([at(0), at(1), at(2)]);
    expect(r.equityCurve[0]!.equity).toBe(10_000);
    expect(r.equityCurve[1]!.equity).toBeCloseTo(10_000 - 0.4444 + 2 * (111 - 111.1), 10);
    expect(r.equityCurve[2]!.equity).toBeCloseTo(10_000 + 16.8756, 10);
  });

  it('fills a market sell short at the next open, moved down by slippage', async () => {
    const r = await run(onFirst(`ctx.sell(c.symbol, { quantity: 2 })`), [flat(100), [110, 112, 108, 111], flat(120)]);
    const t = r.trades[0]!;
    expect(t.side).toBe('short');
    expect(t.entryPrice).toBeCloseTo(108.9, 10);
    expect(t.pnl).toBeCloseTo(2 * (108.9 - 120) - (2 * 108.9 * 0.002 + 2 * 120 * 0.002), 10);
  });

  it('never fills an order placed on the last candle (no look-ahead)', async () => {
    const r = await run(`export function onCandle(ctx, c) { if (c.time === ${T0 + 2 * MINUTE}) ctx.buy(c.symbol, { quantity: 1 }); }`, [
      flat(100),
      flat(100),
      flat(100),
    ]);
    expect(r.trades).toEqual([]);
    expect(r.equityCurve.at(-1)!.equity).toBe(10_000);
  });

  it('fills a limit buy at its price only when the candle trades through it, with the maker fee', async () => {
    const rows: Row[] = [flat(100), [100, 101, 96, 100], [100, 100, 95, 99], [99, 99, 94, 97], flat(100)];
    const r = await run(onFirst(`ctx.buy(c.symbol, { type: 'limit', price: 95, quantity: 1 })`), rows);
    const t = r.trades[0]!;
    expect(t.entryTime).toBe(at(3)); // touching 95 on candle 2 is not enough
    expect(t.entryPrice).toBe(95);
    expect(t.fees).toBeCloseTo(95 * 0.001 + 100 * 0.002, 10);
    expect(t.pnl).toBeCloseTo(5 - 0.295, 10);
  });

  it('fills a limit buy at the open when the candle gaps through the price', async () => {
    const r = await run(onFirst(`ctx.buy(c.symbol, { type: 'limit', price: 95, quantity: 1 })`), [flat(100), [93, 94, 92, 93], flat(93)]);
    expect(r.trades[0]!.entryPrice).toBe(93);
  });

  it('fills a limit sell when the high trades through the price', async () => {
    const r = await run(onFirst(`ctx.sell(c.symbol, { type: 'limit', price: 105, quantity: 1 })`), [
      flat(100),
      [100, 105, 99, 104],
      [104, 106, 103, 104],
      flat(100),
    ]);
    const t = r.trades[0]!;
    expect(t).toMatchObject({ side: 'short', entryTime: at(2), entryPrice: 105 });
  });

  it('triggers a stop buy when the high touches the stop, filling at the stop plus slippage with the taker fee', async () => {
    const rows: Row[] = [flat(100), [100, 104, 99, 103], [103, 105, 102, 104], flat(104)];
    const r = await run(onFirst(`ctx.buy(c.symbol, { type: 'stop', price: 105, quantity: 1 })`), rows);
    const t = r.trades[0]!;
    expect(t.entryTime).toBe(at(2));
    expect(t.entryPrice).toBeCloseTo(106.05, 10);
    expect(t.fees).toBeCloseTo(106.05 * 0.002 + 104 * 0.002, 10);
  });

  it('fills a stop at the open plus slippage when the candle gaps past the stop', async () => {
    const r = await run(onFirst(`ctx.buy(c.symbol, { type: 'stop', price: 105, quantity: 1 })`), [flat(100), [107, 108, 106, 107], flat(107)]);
    expect(r.trades[0]!.entryPrice).toBeCloseTo(108.07, 10);
  });

  it('assumes the stop-loss first when stop-loss and take-profit are both touched in one candle', async () => {
    const rows: Row[] = [flat(100), [100, 100.5, 99.5, 100], [100, 111, 94, 100], flat(100)];
    const r = await run(onFirst(`ctx.buy(c.symbol, { quantity: 1, stopLoss: 95, takeProfit: 110 })`), rows);
    const t = r.trades[0]!;
    expect(t).toMatchObject({ exitReason: 'stopLoss', exitTime: at(2) });
    expect(t.entryPrice).toBeCloseTo(101, 10);
    expect(t.exitPrice).toBeCloseTo(94.05, 10); // 95 less 1% slippage
    expect(t.pnl).toBeCloseTo(94.05 - 101 - (101 * 0.002 + 94.05 * 0.002), 10);
  });

  it('takes profit at the take-profit price with the maker fee when the high trades through it', async () => {
    const rows: Row[] = [flat(100), [100, 100.5, 99.5, 100], [100, 110, 99, 100], [100, 111, 99, 110], flat(110)];
    const r = await run(onFirst(`ctx.buy(c.symbol, { quantity: 1, stopLoss: 95, takeProfit: 110 })`), rows);
    const t = r.trades[0]!;
    expect(t).toMatchObject({ exitReason: 'takeProfit', exitTime: at(3), exitPrice: 110 });
    expect(t.pnl).toBeCloseTo(110 - 101 - (101 * 0.002 + 110 * 0.001), 10);
  });

  it('liquidates an isolated position when its loss reaches its margin less the maintenance margin', async () => {
    const rows: Row[] = [flat(100), flat(100), [95, 96, 90, 92], flat(92)];
    const r = await run(onFirst(`ctx.buy(c.symbol, { quantity: 10 })`), rows, { leverage: 10, slippage: 0, fees: { maker: 0, taker: 0 } });
    const t = r.trades[0]!;
    // margin 10 * 100 / 10 = 100; liquidation price 100 * (1 - 1/10 + 0.005) = 90.5
    expect(t).toMatchObject({ exitReason: 'liquidation', exitTime: at(2) });
    expect(t.exitPrice).toBeCloseTo(90.5, 10);
    expect(t.pnl).toBeCloseTo(-100, 10); // the whole margin: 95 of loss plus 5 of maintenance margin
    expect(r.equityCurve.at(-1)!.equity).toBeCloseTo(9900, 10);
  });

  it('sizes an order as a fraction of equity times leverage', async () => {
    const r = await run(onFirst(`ctx.buy(c.symbol, { size: 0.5 })`), [flat(100), flat(100), flat(100)], {
      leverage: 2,
      slippage: 0,
      fees: { maker: 0, taker: 0 },
    });
    expect(r.trades[0]!.quantity).toBeCloseTo(100, 10); // 0.5 * 10,000 * 2 / 100
  });

  it('closes and reverses a position with one larger opposite order', async () => {
    const source = `export function onCandle(ctx, c) {
      if (c.time === ${T0}) ctx.buy(c.symbol, { quantity: 1 });
      if (c.time === ${T0 + MINUTE}) ctx.sell(c.symbol, { quantity: 2 });
    }`;
    const r = await run(source, [flat(100), flat(100), flat(110), flat(105)], { slippage: 0, fees: { maker: 0, taker: 0 } });
    expect(r.trades.map((t) => [t.side, t.entryPrice, t.exitPrice, t.quantity, t.pnl, t.exitReason])).toEqual([
      ['long', 100, 110, 1, 10, 'market'],
      ['short', 110, 105, 1, 5, 'end'],
    ]);
  });

  it('closes a position with ctx.close at the next open', async () => {
    const source = `export function onCandle(ctx, c) {
      if (c.time === ${T0}) ctx.buy(c.symbol, { quantity: 1 });
      if (c.time === ${T0 + MINUTE}) ctx.close(c.symbol);
    }`;
    const r = await run(source, [flat(100), flat(100), [120, 121, 119, 120], flat(130)], { slippage: 0, fees: { maker: 0, taker: 0 } });
    expect(r.trades).toHaveLength(1);
    expect(r.trades[0]).toMatchObject({ exitPrice: 120, exitTime: at(2), pnl: 20, exitReason: 'market' });
  });

  it('reports fills and rejections to onOrder, and rejects an order the margin cannot cover', async () => {
    const source = `let n = 0;
    export function onCandle(ctx, c) {
      n++;
      if (n === 1) ctx.buy(c.symbol, { quantity: 1000, tag: 'big' });
      if (n === 2) ctx.buy(c.symbol, { quantity: 1, tag: 'small' });
    }
    export function onOrder(ctx, o) { ctx.log(o.tag, o.status, o.type, o.side, o.price, o.reason === null ? '' : o.reason.split(':')[0]); }`;
    const r = await run(source, [flat(100), flat(100), flat(100), flat(100)], { slippage: 0 });
    expect(r.logs.map((l) => l.message)).toEqual(['big rejected market buy NaN insufficient margin', 'small filled market buy 100 ']);
    expect(r.trades).toHaveLength(1);
  });

  it('refuses short selling on SPOT', async () => {
    const source = onFirst(`ctx.sell(c.symbol, { quantity: 1 })`);
    const r = await pool.runBacktest({
      source: source.replace('export function onCandle', 'export function onOrder(ctx, o) { ctx.log(o.status, o.reason) }\nexport function onCandle'),
      candles: { 'BTC/USDT': candlesOf([flat(100), flat(100), flat(100)]) },
      marketType: 'SPOT',
    });
    expect(r.trades).toEqual([]);
    expect(r.logs[0]!.message).toBe('rejected SPOT markets cannot be sold short');
  });

  it('skips onCandle during warm-up, counting candles before startTime', async () => {
    const source = `export const meta = { warmup: 3 };
export function onCandle(ctx, c) { ctx.log(c.close, ctx.indicators.sma(c.symbol, 3)); }`;
    const r = await pool.runBacktest({
      source,
      candles: { 'BTC/USDT': candlesOf([flat(1), flat(2), flat(3), flat(4), flat(5)]) },
      startTime: T0 + MINUTE,
    });
    expect(r.logs.map((l) => l.message)).toEqual(['3 2', '4 3', '5 4']);
    expect(r.equityCurve).toHaveLength(4); // candles from startTime on are marked
  });
});

describe('multi-symbol backtests', () => {
  it('merges candles in time order over one shared account, one equity point per distinct time', async () => {
    const source = `export function onCandle(ctx, c) {
      ctx.log(c.symbol, (c.time - ${T0}) / 60000);
      if (!ctx.position(c.symbol) && c.time === ${T0 + 2 * MINUTE} ) ctx.buy(c.symbol, { quantity: 1 });
    }`;
    const r = await pool.runBacktest({
      source,
      symbols: ['AAA/USDT', 'BBB/USDT'],
      candles: {
        'AAA/USDT': [
          { time: T0, open: 10, high: 10, low: 10, close: 10, volume: 1 },
          { time: T0 + 2 * MINUTE, open: 10, high: 10, low: 10, close: 10, volume: 1 },
          { time: T0 + 3 * MINUTE, open: 10, high: 12, low: 10, close: 12, volume: 1 },
        ],
        'BBB/USDT': [
          { time: T0 + MINUTE, open: 20, high: 20, low: 20, close: 20, volume: 1 },
          { time: T0 + 2 * MINUTE, open: 20, high: 20, low: 20, close: 20, volume: 1 },
          { time: T0 + 3 * MINUTE, open: 20, high: 20, low: 19, close: 19, volume: 1 },
        ],
      },
      fees: { maker: 0, taker: 0 },
    });
    expect(r.logs.map((l) => l.message)).toEqual(['AAA/USDT 0', 'BBB/USDT 1', 'AAA/USDT 2', 'BBB/USDT 2', 'AAA/USDT 3', 'BBB/USDT 3']);
    expect(r.equityCurve.map((p) => p.time)).toEqual([at(0), at(1), at(2), at(3)]);
    expect(r.equityCurve.at(-1)!.equity).toBeCloseTo(10_000 + 2 - 1, 10);
    expect(r.metrics.perSymbol['AAA/USDT']!.totalReturn).toBeCloseTo(2 / 10_000, 12);
    expect(r.metrics.perSymbol['BBB/USDT']!.totalReturn).toBeCloseTo(-1 / 10_000, 12);
    expect(r.metrics.tradeCount).toBe(2);
  });
});

describe('ctx', () => {
  it('shows positions, open orders, equity and cash; cancels orders and moves stops', async () => {
    const source = `let i = 0;
export function onCandle(ctx, c) {
  if (i === 0) {
    ctx.buy(c.symbol, { quantity: 2, stopLoss: 50, tag: 'entry' });
    const id = ctx.buy(c.symbol, { type: 'limit', price: 10, quantity: 1 });
    ctx.log('orders', ctx.orders().length, ctx.orders(c.symbol)[1].type, ctx.cancel(id), ctx.cancel(id), ctx.orders().length);
  }
  if (i === 1) {
    const p = ctx.position(c.symbol);
    ctx.log('position', p.side, p.quantity, p.entryPrice, p.stopLoss, p.takeProfit, p.unrealizedPnl, ctx.equity(), ctx.cash());
    ctx.log('moved', ctx.setStopLoss(c.symbol, 105), ctx.setTakeProfit(c.symbol, null), ctx.position(c.symbol).stopLoss);
    ctx.log('frozen', Object.isFrozen(p), Object.isFrozen(ctx), Object.isFrozen(ctx.params), ctx.symbols.join(','), ctx.mode);
  }
  if (i === 2) ctx.log('after stop', ctx.position(c.symbol), ctx.equity());
  i++;
}
export function onOrder(ctx, o) { ctx.log('event', o.type, o.status, o.tag); }`;
    const r = await run(source, [flat(100), [100, 112, 100, 110], [106, 106, 104, 104], flat(104)], { slippage: 0, fees: { maker: 0, taker: 0 } });
    expect(r.logs.map((l) => l.message)).toEqual([
      'orders 2 limit true false 1',
      'event limit cancelled null',
      'event market filled entry',
      'position long 2 100 50 null 20 10020 10000',
      'moved true true 105',
      'frozen true true true BTC/USDT:USDT backtest',
      'event stopLoss filled null',
      'after stop null 10010',
    ]);
    expect(r.trades[0]).toMatchObject({ exitReason: 'stopLoss', exitPrice: 105, pnl: 10 });
  });
});
