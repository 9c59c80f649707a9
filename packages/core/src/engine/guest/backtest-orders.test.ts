import { describe, expect, it } from 'vitest';
import { BTC, bars, flat, MIN, type Row, runBacktest, scripted, thrown } from './testing/backtest-harness.js';

/*
 * Orders in a backtest, run in the host through createBacktestRun (the same modules QuickJS
 * evaluates): how each type fills (docs/backtest-model.md, "Fills"), what is refused and why,
 * what `ctx.orders()` and `onOrder` show. Every expected number is worked out in a comment;
 * candle i is at minute i.
 */
const FEES = { maker: 0.001, taker: 0.002 };

/** A scripted strategy recording every event `onOrder` receives, and what `after` answers at each candle. */
function recording(steps: Record<number, (ctx: any, candle: any) => void>, after?: (ctx: any) => unknown) {
  const events: any[] = [];
  const seen: any[] = [];
  const strategy = scripted(steps, { onOrder: (_ctx, e) => events.push(e), after: after && ((ctx) => seen.push(after(ctx))) });
  return { strategy, events, seen };
}

describe('market orders', () => {
  it('fill at the next open moved against the trader by the slippage, with the taker fee, never on the candle that placed them', () => {
    const rows: Row[] = [
      flat(100), // 0: buy 1
      [100, 104, 99, 103], // 1: fills at 100 x 1.01 = 101, fee 101 x 0.002 = 0.202; sell 1
      [110, 111, 109, 110], // 2: fills at 110 x 0.99 = 108.9, fee 0.2178
      flat(110),
    ];
    const { trades, final } = runBacktest(bars(rows), scripted({ 0: (ctx) => ctx.buy(BTC, { quantity: 1 }), 1: (ctx) => ctx.sell(BTC, { quantity: 1 }) }), {
      config: { ...FEES, slippage: 0.01 },
    });
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ dir: 1, entryTime: MIN, exitTime: 2 * MIN, quantity: 1, reason: 'market' });
    expect(trades[0]!.entryPrice).toBeCloseTo(101, 9);
    expect(trades[0]!.exitPrice).toBeCloseTo(108.9, 9);
    // 108.9 - 101 = 7.9, less 0.202 + 0.2178 of fees
    expect(trades[0]!.fees).toBeCloseTo(0.4198, 9);
    expect(trades[0]!.pnl).toBeCloseTo(7.4802, 9);
    expect(final[0]).toBeCloseTo(10_007.4802, 6);
  });
});

describe('limit orders', () => {
  it('fill only when the price trades through the limit, at the limit, with the maker fee', () => {
    const { strategy, events } = recording({
      0: (ctx) => ctx.buy(BTC, { type: 'limit', price: 95, quantity: 2 }),
      3: (ctx) => ctx.close(BTC),
    });
    const rows: Row[] = [
      flat(100), // 0: limit buy 2 at 95
      [100, 101, 95, 97], // 1: the low touches 95 without trading through it: no fill
      [99, 100, 94, 96], // 2: the low 94 trades through: 2 at 95, maker fee 2 x 95 x 0.001 = 0.19
      flat(96), // 3: close
      flat(100), // 4: the close fills at the open, 100, taker fee 2 x 100 x 0.002 = 0.4
    ];
    const { trades, final } = runBacktest(bars(rows), strategy, { config: FEES });
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ id: 'o1', side: 'buy', type: 'limit', status: 'filled', quantity: 2, price: 95, time: 2 * MIN, reason: null });
    expect(events[0].fee).toBeCloseTo(0.19, 12);
    expect(events[1]).toMatchObject({ id: 'o2', side: 'sell', type: 'market', status: 'filled', quantity: 2, price: 100, time: 4 * MIN });
    expect(events[1].fee).toBeCloseTo(0.4, 12);
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ entryTime: 2 * MIN, entryPrice: 95, exitTime: 4 * MIN, exitPrice: 100, quantity: 2, reason: 'market' });
    // 2 x (100 - 95) = 10, less 0.19 + 0.4
    expect(trades[0]!.pnl).toBeCloseTo(9.41, 9);
    expect(final[0]).toBeCloseTo(10_009.41, 9);
  });

  it('fill at the open when the candle opens beyond the limit (a buy above, a sell below the open)', () => {
    const rows: Row[] = [
      flat(100), // 0: limit buy 1 at 105
      [100, 101, 98, 99], // 1: low 98 < 105 and it opens below 105: fills at the open, 100; limit sell 1 at 95
      [100, 101, 98, 99], // 2: high 101 > 95 and it opens above 95: fills at the open, 100
      flat(99),
    ];
    const { trades } = runBacktest(
      bars(rows),
      scripted({
        0: (ctx) => ctx.buy(BTC, { type: 'limit', price: 105, quantity: 1 }),
        1: (ctx) => ctx.sell(BTC, { type: 'limit', price: 95, quantity: 1 }),
      }),
    );
    expect(trades).toEqual([
      { s: 0, dir: 1, entryTime: MIN, entryPrice: 100, exitTime: 2 * MIN, exitPrice: 100, quantity: 1, pnl: 0, fees: 0, reason: 'limit', funding: 0 },
    ]);
  });
});

describe('stop orders', () => {
  it('fill when the price touches the stop, moved by the slippage, or at the open on a gap, with the taker fee', () => {
    const rows: Row[] = [
      flat(100), // 0: stop buy 1 at 104
      [100, 103, 99, 102], // 1: high 103 below 104: no fill
      [102, 104, 101, 103], // 2: high touches 104: fills at 104 x 1.01 = 105.04, fee 0.21008; stop sell 1 at 100
      [95, 96, 90, 92], // 3: opens at 95, below 100: fills at 95 x 0.99 = 94.05, fee 0.1881
      flat(92),
    ];
    const { trades } = runBacktest(
      bars(rows),
      scripted({
        0: (ctx) => ctx.buy(BTC, { type: 'stop', price: 104, quantity: 1 }),
        2: (ctx) => ctx.sell(BTC, { type: 'stop', price: 100, quantity: 1 }),
      }),
      { config: { ...FEES, slippage: 0.01 } },
    );
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ dir: 1, entryTime: 2 * MIN, exitTime: 3 * MIN, quantity: 1, reason: 'stop' });
    expect(trades[0]!.entryPrice).toBeCloseTo(105.04, 9);
    expect(trades[0]!.exitPrice).toBeCloseTo(94.05, 9);
    expect(trades[0]!.fees).toBeCloseTo(0.39818, 9);
    // 94.05 - 105.04 = -10.99, less 0.39818
    expect(trades[0]!.pnl).toBeCloseTo(-11.38818, 9);
  });
});

describe('reduce-only orders', () => {
  it('are cancelled with nothing to reduce and never reverse the position', () => {
    const { strategy, events, seen } = recording(
      {
        0: (ctx) => {
          ctx.sell(BTC, { quantity: 1, reduceOnly: true }); // o1: flat when it fills
          ctx.buy(BTC, { quantity: 2 }); // o2
        },
        1: (ctx) => {
          ctx.buy(BTC, { quantity: 1, reduceOnly: true }); // o3: would add to the long
          ctx.sell(BTC, { quantity: 5, reduceOnly: true }); // o4: sells the 2 held, not 5
        },
      },
      (ctx) => ctx.position(BTC),
    );
    const { trades } = runBacktest(bars([flat(100), flat(100), flat(100)]), strategy);
    expect(events.map((e) => [e.id, e.status, e.side, e.quantity, e.reason])).toEqual([
      ['o1', 'cancelled', 'sell', 0, 'reduce-only order has no position to reduce'],
      ['o2', 'filled', 'buy', 2, null],
      ['o3', 'cancelled', 'buy', 0, 'reduce-only order has no position to reduce'],
      ['o4', 'filled', 'sell', 2, null],
    ]);
    expect(seen[2]).toBeNull();
    expect(trades.map((t) => [t.dir, t.quantity])).toEqual([[1, 2]]);
  });
});

describe('SPOT', () => {
  it('rejects a sell while flat and sells no more than is held', () => {
    const {
      strategy,
      events,
      seen: views,
    } = recording(
      {
        0: (ctx) => {
          ctx.sell(BTC, { quantity: 1 });
          ctx.buy(BTC, { quantity: 2 });
        },
        1: (ctx) => ctx.sell(BTC, { quantity: 5 }),
      },
      (ctx) => ctx.position(BTC),
    );
    const { trades } = runBacktest(bars([flat(100), flat(100), flat(110)]), strategy, { config: { allowShort: false, liquidation: false } });
    expect(events.map((e) => [e.id, e.status, e.quantity, e.reason])).toEqual([
      ['o1', 'rejected', 0, 'SPOT markets cannot be sold short'],
      ['o2', 'filled', 2, null],
      ['o3', 'filled', 2, null],
    ]);
    expect(events[0].price).toBeNaN();
    // never liquidated: no liquidation price on the long
    expect(views[1]).toMatchObject({ side: 'long', quantity: 2, liquidationPrice: null });
    expect(views[2]).toBeNull();
    expect(trades).toHaveLength(1);
  });
});

describe('margin', () => {
  it('rejects an order the free margin cannot pay for, telling onOrder how much it needed', () => {
    const {
      strategy,
      events,
      seen: views,
    } = recording(
      {
        0: (ctx) => {
          ctx.buy(BTC, { quantity: 30 }); // needs 30 x 100 / 2 = 1500 of 1000
          ctx.buy(BTC, { quantity: 20 }); // needs 1000 of 1000: fills
        },
        1: (ctx) => ctx.buy(BTC, { quantity: 1 }), // needs 50; equity 1000 less the margin 1000 leaves 0
        2: (ctx) => ctx.sell(BTC, { quantity: 40 }), // reverses: frees the long's 1000, the short of 20 needs 1000
      },
      (ctx) => ctx.position(BTC),
    );
    runBacktest(bars([flat(100), flat(100), flat(100), flat(100)]), strategy, { config: { initialCapital: 1000, leverage: 2 } });
    expect(events.map((e) => [e.id, e.status, e.quantity, e.reason])).toEqual([
      ['o1', 'rejected', 0, 'insufficient margin: needs 1500, available 1000'],
      ['o2', 'filled', 20, null],
      ['o3', 'rejected', 0, 'insufficient margin: needs 50, available 0'],
      ['o4', 'filled', 40, null],
    ]);
    expect(views[1]).toMatchObject({ side: 'long', quantity: 20, margin: 1000 });
    expect(views[3]).toMatchObject({ side: 'short', quantity: 20, margin: 1000 });
  });
});

describe('size-based orders', () => {
  it('commit a fraction of equity as margin, computed when they fill', () => {
    const snapshots: unknown[] = [];
    const { strategy, seen: views } = recording(
      {
        0: (ctx) => {
          ctx.buy(BTC, { size: 0.5 });
          snapshots.push(ctx.orders()[0]);
        },
        // equity at the close of candle 1: 10,000 + 100 x (110 - 100) = 11,000
        1: (ctx) => ctx.sell(BTC, { size: 0.25 }),
      },
      (ctx) => [ctx.position(BTC), ctx.equity()],
    );
    runBacktest(bars([flat(100), [100, 110, 100, 110], flat(110)]), strategy, { config: { leverage: 2 } });
    expect(snapshots[0]).toMatchObject({ quantity: null, size: 0.5 });
    // 0.5 x 10,000 x 2 / 100 = 100 units, margin 100 x 100 / 2 = 5,000
    expect(views[1][0]).toMatchObject({ quantity: 100, entryPrice: 100, margin: 5000 });
    expect(views[1][1]).toBe(11_000);
    // 0.25 x 11,000 x 2 / 110 = 50 units sold: 50 left
    expect(views[2][0]).toMatchObject({ side: 'long', quantity: 50 });
  });
});

describe('ctx.orders()', () => {
  it('answers frozen snapshots of the open orders with their options, per symbol or all', () => {
    let all: any;
    let mine: any;
    let afterFill: any;
    let closing: any;
    runBacktest(
      bars([flat(100), flat(100), flat(100)]),
      scripted({
        0: (ctx) => {
          ctx.buy(BTC, { type: 'limit', price: 95, quantity: 1, stopLoss: 90, takeProfit: 120, tag: 'dip' });
          ctx.sell(BTC, { type: 'stop', price: 80, size: 0.1, reduceOnly: true });
          ctx.buy(BTC, { quantity: 3 });
          all = ctx.orders();
          mine = ctx.orders(BTC);
        },
        1: (ctx) => {
          afterFill = ctx.orders().map((o: any) => o.id);
          ctx.close(BTC);
          closing = ctx.orders().at(-1);
        },
      }),
    );
    expect(all).toEqual([
      {
        id: 'o1',
        symbol: BTC,
        side: 'buy',
        type: 'limit',
        price: 95,
        quantity: 1,
        size: null,
        stopLoss: 90,
        takeProfit: 120,
        reduceOnly: false,
        tag: 'dip',
        time: 0,
      },
      {
        id: 'o2',
        symbol: BTC,
        side: 'sell',
        type: 'stop',
        price: 80,
        quantity: null,
        size: 0.1,
        stopLoss: null,
        takeProfit: null,
        reduceOnly: true,
        tag: null,
        time: 0,
      },
      {
        id: 'o3',
        symbol: BTC,
        side: 'buy',
        type: 'market',
        price: null,
        quantity: 3,
        size: null,
        stopLoss: null,
        takeProfit: null,
        reduceOnly: false,
        tag: null,
        time: 0,
      },
    ]);
    expect(mine).toEqual(all);
    expect(Object.isFrozen(all)).toBe(true);
    expect(Object.isFrozen(all[0])).toBe(true);
    // the market buy filled at candle 1's open; the limit and the stop wait
    expect(afterFill).toEqual(['o1', 'o2']);
    // a close of the long of 3: a reduce-only market sell of the whole position
    expect(closing).toEqual({
      id: 'o4',
      symbol: BTC,
      side: 'sell',
      type: 'market',
      price: null,
      quantity: 3,
      size: null,
      stopLoss: null,
      takeProfit: null,
      reduceOnly: true,
      tag: null,
      time: MIN,
    });
  });
});

describe('cancel and cancelAll', () => {
  it('remove open orders and tell onOrder, after the call that cancelled them', () => {
    const log: string[] = [];
    const answers: unknown[] = [];
    const strategy = scripted(
      {
        0: (ctx) => {
          ctx.buy(BTC, { type: 'limit', price: 90, quantity: 1, tag: 'a' });
          ctx.buy(BTC, { type: 'limit', price: 80, quantity: 1 });
          ctx.sell(BTC, { type: 'limit', price: 120, quantity: 1 });
          answers.push(ctx.cancel('o1'), ctx.cancel('o1'), ctx.cancel('nope'), ctx.cancel(42));
          log.push('onCandle 0 returns');
        },
        1: (ctx) => {
          answers.push(ctx.cancelAll(BTC), ctx.cancelAll(), ctx.orders().length);
        },
      },
      { onOrder: (ctx, e) => log.push(`${e.id} ${e.status} ${e.type} ${e.side} ${e.quantity} ${e.fee} ${e.time} ${e.reason} ${e.tag} ${ctx.orders().length}`) },
    );
    runBacktest(bars([flat(100), flat(100), flat(100)]), strategy);
    expect(answers).toEqual([true, false, false, false, 2, 0, 0]);
    expect(log.slice(0, 2)).toEqual(['onCandle 0 returns', 'o1 cancelled limit buy 0 0 0 cancelled by the strategy a 2']);
    // both remaining orders, cancelled at candle 1 (whatever the order of their events)
    expect(log.slice(2).sort()).toEqual([
      `o2 cancelled limit buy 0 0 ${MIN} cancelled by the strategy null 0`,
      `o3 cancelled limit sell 0 0 ${MIN} cancelled by the strategy null 0`,
    ]);
  });
});

describe('ctx.close', () => {
  it('answers the same pending order when called again, and null when flat', () => {
    const answers: unknown[] = [];
    const { trades } = runBacktest(
      bars([flat(100), flat(100), flat(105), flat(105)]),
      scripted({
        0: (ctx) => {
          answers.push(ctx.close(BTC));
          ctx.buy(BTC, { quantity: 1 });
        },
        1: (ctx) => answers.push(ctx.close(BTC), ctx.close(BTC), ctx.orders().length),
        2: (ctx) => answers.push(ctx.position(BTC), ctx.close(BTC)),
      }),
    );
    expect(answers).toEqual([null, 'o2', 'o2', 1, null, null]);
    expect(trades.map((t) => [t.entryPrice, t.exitPrice, t.quantity, t.reason])).toEqual([[100, 105, 1, 'market']]);
  });

  it('is cancelled when the position is already gone as it fills', () => {
    const { strategy, events } = recording({
      0: (ctx) => ctx.buy(BTC, { quantity: 1 }),
      1: (ctx) => {
        ctx.sell(BTC, { quantity: 1 }); // o2 fills first and closes the long
        ctx.close(BTC); // o3
      },
    });
    runBacktest(bars([flat(100), flat(100), flat(100)]), strategy);
    expect(events.map((e) => [e.id, e.status, e.reason])).toEqual([
      ['o1', 'filled', null],
      ['o2', 'filled', null],
      ['o3', 'cancelled', 'no position to close'],
    ]);
  });
});

describe('stop-loss and take-profit', () => {
  const buyWithExits = (exits: object) => scripted({ 0: (ctx) => ctx.buy(BTC, { quantity: 1, ...exits }) });

  it('on one candle that crosses both: the stop-loss is assumed first, with the taker fee', () => {
    const { strategy, events } = recording({ 0: (ctx) => ctx.buy(BTC, { quantity: 1, stopLoss: 95, takeProfit: 110 }) });
    const rows: Row[] = [flat(100), flat(100), [100, 111, 94, 105], flat(105)];
    const { trades } = runBacktest(bars(rows), strategy, { config: FEES });
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ entryPrice: 100, exitTime: 2 * MIN, exitPrice: 95, reason: 'stopLoss' });
    // -5, less the entry fee 0.2 and the exit fee 95 x 0.002 = 0.19
    expect(trades[0]!.pnl).toBeCloseTo(-5.39, 9);
    expect(events[1]).toMatchObject({ id: 'x1', symbol: BTC, side: 'sell', type: 'stopLoss', status: 'filled', quantity: 1, price: 95, time: 2 * MIN });
    expect(events[1].fee).toBeCloseTo(0.19, 12);
    expect(events[1].reason).toBeNull();
  });

  it('take-profit needs the price to trade through it, and fills with the maker fee', () => {
    const touch = runBacktest(bars([flat(100), flat(100), [100, 110, 99, 105], flat(105)]), buyWithExits({ takeProfit: 110 }), { config: FEES });
    expect(touch.trades[0]!.reason).toBe('end');
    const through = runBacktest(bars([flat(100), flat(100), [100, 111, 99, 105], flat(105)]), buyWithExits({ takeProfit: 110 }), { config: FEES });
    expect(through.trades[0]).toMatchObject({ exitTime: 2 * MIN, exitPrice: 110, reason: 'takeProfit' });
    // +10, less the entry fee 0.2 and the exit fee 110 x 0.001 = 0.11
    expect(through.trades[0]!.pnl).toBeCloseTo(9.69, 9);
  });

  it('a stop-loss gapped through fills at the open', () => {
    const { trades } = runBacktest(bars([flat(100), flat(100), [90, 92, 88, 91], flat(91)]), buyWithExits({ stopLoss: 95 }));
    expect(trades[0]).toMatchObject({ exitPrice: 90, reason: 'stopLoss' });
  });

  it('a position opened by a limit inside a candle meets its stop-loss on the rest of that candle, but its take-profit only from the next', () => {
    const stopped = runBacktest(
      bars([flat(100), [102, 103, 94, 96], flat(96)]),
      scripted({ 0: (ctx) => ctx.buy(BTC, { type: 'limit', price: 100, quantity: 1, stopLoss: 95 }) }),
    );
    // the limit fills at 100 (the low trades through, it opens above); the low 94 then reaches 95
    expect(stopped.trades).toEqual([
      { s: 0, dir: 1, entryTime: MIN, entryPrice: 100, exitTime: MIN, exitPrice: 95, quantity: 1, pnl: -5, fees: 0, reason: 'stopLoss', funding: 0 },
    ]);
    const profit = runBacktest(
      bars([flat(100), [101, 103, 99, 102], [102, 104, 101, 103], flat(103)]),
      scripted({ 0: (ctx) => ctx.buy(BTC, { type: 'limit', price: 100, quantity: 1, takeProfit: 102 }) }),
    );
    // candle 1's high 103 passes 102 but may have come before the fill; candle 2 opens at 102, not above: fills at 102
    expect(profit.trades[0]).toMatchObject({ entryTime: MIN, exitTime: 2 * MIN, exitPrice: 102, reason: 'takeProfit' });
  });

  it('ctx.setStopLoss / setTakeProfit move or remove the levels of the open position, from the next candle on; false when flat', () => {
    const answers: unknown[] = [];
    const rows: Row[] = [
      flat(100), // 0: flat: false; buy 1
      [100, 100, 90, 100], // 1: long at 100; the stop-loss set at this close ignores this candle's low
      [99, 99, 96, 97], // 2: low 96 above 95
      [97, 97, 94, 95], // 3: low 94 reaches 95
      flat(95),
    ];
    const { trades } = runBacktest(
      bars(rows),
      scripted({
        0: (ctx) => {
          answers.push(ctx.setStopLoss(BTC, 95), ctx.setTakeProfit(BTC, 120));
          ctx.buy(BTC, { quantity: 1 });
        },
        1: (ctx) => {
          answers.push(ctx.setStopLoss(BTC, 95), ctx.setTakeProfit(BTC, 120), ctx.position(BTC).stopLoss, ctx.position(BTC).takeProfit);
          answers.push(ctx.setTakeProfit(BTC, null), ctx.position(BTC).takeProfit);
          answers.push(thrown(() => ctx.setStopLoss(BTC, -1)));
        },
      }),
    );
    expect(answers).toEqual([false, false, true, true, 95, 120, true, null, { name: 'TypeError', message: 'stopLoss must be a positive price, got -1' }]);
    expect(trades[0]).toMatchObject({ exitTime: 3 * MIN, exitPrice: 95, reason: 'stopLoss' });
  });
});

describe('liquidation', () => {
  it('closes a short at its liquidation price and charges what is left of the margin', () => {
    const { strategy, events, seen: views } = recording({ 0: (ctx) => ctx.sell(BTC, { quantity: 1 }) }, (ctx) => ctx.position(BTC));
    const { trades, final } = runBacktest(bars([flat(100), flat(100), [100, 110, 99, 105], flat(105)]), strategy, { config: { leverage: 10 } });
    // margin 100 / 10 = 10; liquidation at 100 x (1 + 1/10 - 0.005) = 109.5
    expect(views[1].liquidationPrice).toBeCloseTo(109.5, 9);
    expect(views[1].margin).toBe(10);
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ dir: -1, exitTime: 2 * MIN, reason: 'liquidation' });
    expect(trades[0]!.exitPrice).toBeCloseTo(109.5, 9);
    // loss 9.5, liquidation fee 10 - 9.5 = 0.5: the whole margin
    expect(trades[0]!.pnl).toBeCloseTo(-10, 9);
    expect(trades[0]!.fees).toBeCloseTo(0.5, 9);
    expect(final[0]).toBeCloseTo(9990, 9);
    expect(events[1]).toMatchObject({
      id: 'x1',
      side: 'buy',
      type: 'liquidation',
      status: 'filled',
      quantity: 1,
      time: 2 * MIN,
      reason: 'loss reached the isolated margin less the maintenance margin',
    });
    expect(events[1].fee).toBeCloseTo(0.5, 9);
  });

  it('comes before a stop-loss that would fill beyond the liquidation price', () => {
    // long 1 at 100, 10x: liquidation at 100 x (1 - 1/10 + 0.005) = 90.5; the stop-loss at 85 would fill below it
    const { trades } = runBacktest(
      bars([flat(100), flat(100), [95, 95, 80, 85], flat(85)]),
      scripted({ 0: (ctx) => ctx.buy(BTC, { quantity: 1, stopLoss: 85 }) }),
      { config: { leverage: 10 } },
    );
    expect(trades[0]).toMatchObject({ reason: 'liquidation' });
    expect(trades[0]!.exitPrice).toBeCloseTo(90.5, 9);
  });
});

describe('order events', () => {
  it('of fills at an open reach onOrder before that candle onCandle, frozen, with the tag', () => {
    const calls: string[] = [];
    let event: any;
    runBacktest(
      bars([flat(100), [101, 102, 100, 101], flat(101)]),
      {
        onCandle(ctx: any, c: any) {
          calls.push(`onCandle ${c.time / MIN}`);
          if (c.time === 0) ctx.buy(BTC, { quantity: 2, tag: 'entry' });
        },
        onOrder(_ctx: any, e: any) {
          calls.push(`onOrder ${e.id}`);
          event = e;
        },
      },
      { config: { ...FEES, slippage: 0.01 } },
    );
    expect(calls).toEqual(['onCandle 0', 'onOrder o1', 'onCandle 1', 'onCandle 2']);
    expect(Object.isFrozen(event)).toBe(true);
    expect(event).toMatchObject({ id: 'o1', symbol: BTC, side: 'buy', type: 'market', status: 'filled', quantity: 2, time: MIN, reason: null, tag: 'entry' });
    // 101 x 1.01 = 102.01; fee 2 x 102.01 x 0.002 = 0.40804
    expect(event.price).toBeCloseTo(102.01, 9);
    expect(event.fee).toBeCloseTo(0.40804, 9);
  });

  it('orders placed in onOrder follow the same rules as in onCandle', () => {
    const { trades } = runBacktest(bars([flat(100), flat(100), flat(110), flat(120)]), {
      onCandle(ctx: any, c: any) {
        if (c.time === 0) ctx.buy(BTC, { quantity: 1 });
      },
      onOrder(ctx: any, e: any) {
        // placed at minute 1 on the fill of o1: fills at minute 2's open
        if (e.id === 'o1') ctx.sell(BTC, { quantity: 1 });
      },
    });
    expect(trades.map((t) => [t.entryTime / MIN, t.entryPrice, t.exitTime / MIN, t.exitPrice])).toEqual([[1, 100, 2, 110]]);
  });
});

describe('refusals thrown to the strategy', () => {
  it('an unknown symbol is a TypeError naming the symbols of the run, whatever the call', () => {
    const errors: unknown[] = [];
    runBacktest(
      bars([flat(100)]),
      scripted({
        0: (ctx) => {
          for (const call of [
            () => ctx.buy('ETH/USDT', { quantity: 1 }),
            () => ctx.sell('ETH/USDT', { quantity: 1 }),
            () => ctx.position('ETH/USDT'),
            () => ctx.orders('ETH/USDT'),
            () => ctx.close('ETH/USDT'),
            () => ctx.cancelAll('ETH/USDT'),
            () => ctx.setStopLoss('ETH/USDT', 1),
            () => ctx.setTakeProfit('ETH/USDT', 1),
            () => ctx.setTrailingStop('ETH/USDT', { distance: 1 }),
            () => ctx.indicators.sma('ETH/USDT', 3),
          ]) {
            errors.push(thrown(call));
          }
          errors.push(thrown(() => ctx.position(42)));
        },
      }),
    );
    const unknown = { name: 'TypeError', message: 'Unknown symbol ETH/USDT; this run trades BTC/USDT:USDT' };
    expect(errors).toEqual([...Array(10).fill(unknown), { name: 'TypeError', message: 'Unknown symbol 42; this run trades BTC/USDT:USDT' }]);
  });

  it('a run holds at most 1,000 open orders: the next is a RangeError, and a cancel makes room', () => {
    const results: unknown[] = [];
    runBacktest(
      bars([flat(100)]),
      scripted({
        0: (ctx) => {
          for (let k = 0; k < 1000; k++) ctx.buy(BTC, { type: 'limit', price: 50, quantity: 0.001 });
          results.push(thrown(() => ctx.sell(BTC, { type: 'limit', price: 150, quantity: 0.001 })));
          results.push(ctx.cancel('o1'));
          results.push(ctx.sell(BTC, { type: 'limit', price: 150, quantity: 0.001 }), ctx.orders().length);
        },
      }),
    );
    expect(results).toEqual([{ name: 'RangeError', message: 'Too many open orders (at most 1000)' }, true, 'o1001', 1000]);
  });
});

describe('the end of the run', () => {
  it('drops open orders and closes positions at the last close with the taker fee', () => {
    const { strategy, events } = recording({
      0: (ctx) => {
        ctx.buy(BTC, { quantity: 2 });
        ctx.buy(BTC, { type: 'limit', price: 50, quantity: 1 });
      },
    });
    const { trades, final } = runBacktest(bars([flat(100), flat(100), flat(120)]), strategy, { config: FEES });
    expect(events.map((e) => e.id)).toEqual(['o1']);
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ entryPrice: 100, exitTime: 2 * MIN, exitPrice: 120, quantity: 2, reason: 'end' });
    // 2 x 20 = 40, less 2 x 100 x 0.002 = 0.4 and 2 x 120 x 0.002 = 0.48
    expect(trades[0]!.pnl).toBeCloseTo(39.12, 9);
    expect(final[0]).toBeCloseTo(10_039.12, 9);
    expect(final[1]).toBeCloseTo(10_039.12, 9);
  });
});
