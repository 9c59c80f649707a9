import { describe, expect, it } from 'vitest';
import { createBacktestRun } from './backtest-run.js';
import { createLogBuffer, type LogBuffer } from './log-buffer.js';
import { type Bar, BTC, bars, configFor, ETH, flat, MIN, type Row, runBacktest, scripted, thrown } from './testing/backtest-harness.js';

/*
 * The candle loop of a backtest in the host: indicators read from the host's blocks, several
 * symbols on one account, batches, warm-up candles, the log limit, and what ctx reads. The
 * indicator values are made up here (the host computes real ones); what matters is which value
 * the strategy reads when.
 */
const N = Number.NaN;

/** Candles of two symbols, merged by time (BTC first at equal times). */
function twoSymbols(btc: Row[], eth: Row[]): Bar[] {
  const a = bars(btc, 0);
  const b = bars(eth, 1);
  const out: Bar[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i]) out.push(a[i]!);
    if (b[i]) out.push(b[i]!);
  }
  return out;
}

describe('indicators', () => {
  it('read the host value as of the close of the candle just closed, registering each series once', () => {
    const seen: number[] = [];
    // after candle 0..4: NaN until the third candle, as a 3-period SMA would be; index 0 is before the first candle
    const sma3 = [N, N, N, 101, 102, 103];
    const { registered } = runBacktest(
      bars([flat(100), flat(100), flat(100), flat(100), flat(100)]),
      scripted({}, { after: (ctx) => seen.push(ctx.indicators.sma(BTC, 3)) }),
      { indicators: () => [sma3] },
    );
    expect(seen).toEqual([N, N, 101, 102, 103]);
    expect(registered).toEqual([[0, 0, 3, 0]]);
  });

  it('ask the host for each kind with its defaults: rsi 14, atr 14, bollinger 20 x 2 with three outputs', () => {
    const seen: unknown[] = [];
    const { registered } = runBacktest(
      bars([flat(100), flat(100)]),
      scripted(
        {},
        { after: (ctx) => seen.push([ctx.indicators.ema(BTC, 5), ctx.indicators.rsi(BTC), ctx.indicators.atr(BTC), ctx.indicators.bollinger(BTC)]) },
      ),
      {
        // each series: its kind x 10 plus the candle index (output k of a band adds 100 x k)
        indicators: (kind) => (kind === 4 ? [0, 1, 2] : [0]).map((o) => [N, 0, 1].map((i) => kind * 10 + i + 100 * o)),
      },
    );
    expect(registered).toEqual([
      [1, 0, 5, 0],
      [2, 0, 14, 0],
      [3, 0, 14, 0],
      [4, 0, 20, 2],
    ]);
    expect(seen).toEqual([
      [10, 20, 30, { upper: 40, middle: 140, lower: 240 }],
      [11, 21, 31, { upper: 41, middle: 141, lower: 241 }],
    ]);
  });

  it('a bollinger band object is frozen, and the same object for the same candle', () => {
    const seen: any[] = [];
    runBacktest(bars([flat(100)]), scripted({ 0: (ctx) => seen.push(ctx.indicators.bollinger(BTC, 10, 1.5), ctx.indicators.bollinger(BTC, 10, 1.5)) }), {
      indicators: () => [
        [N, 3],
        [N, 2],
        [N, 1],
      ],
    });
    expect(seen[0]).toEqual({ upper: 3, middle: 2, lower: 1 });
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(seen[1]).toBe(seen[0]);
  });

  it('in onOrder for a fill at an open, read the value before that candle', () => {
    const seen: unknown[] = [];
    runBacktest(
      bars([flat(100), flat(100), flat(100)]),
      scripted(
        {
          0: (ctx) => {
            seen.push(['onCandle', ctx.indicators.sma(BTC, 2)]);
            ctx.buy(BTC, { quantity: 1 });
          },
          1: (ctx) => seen.push(['onCandle', ctx.indicators.sma(BTC, 2)]),
        },
        { onOrder: (ctx) => seen.push(['onOrder', ctx.indicators.sma(BTC, 2)]) },
      ),
      { indicators: () => [[N, 1, 2, 3]] },
    );
    // the fill is at candle 1's open: the value after candle 0
    expect(seen).toEqual([
      ['onCandle', 1],
      ['onOrder', 1],
      ['onCandle', 2],
    ]);
  });

  it('periods of 4,096 and more are registered once too', () => {
    const seen: number[] = [];
    const { registered } = runBacktest(
      bars([flat(100), flat(100)]),
      scripted({}, { after: (ctx) => seen.push(ctx.indicators.sma(BTC, 5000), ctx.indicators.ema(BTC, 100_000)) }),
      { indicators: (kind) => [[N, kind, kind + 10]] },
    );
    expect(registered).toEqual([
      [0, 0, 5000, 0],
      [1, 0, 100_000, 0],
    ]);
    expect(seen).toEqual([0, 1, 10, 11]);
  });

  it('refuse a bad period or multiplier, and more series than the run allows, with messages the strategy can read', () => {
    const errors: unknown[] = [];
    const { registered } = runBacktest(
      bars([flat(100)]),
      scripted({
        0: (ctx) => {
          errors.push(thrown(() => ctx.indicators.sma(BTC, 0)));
          errors.push(thrown(() => ctx.indicators.sma(BTC, 2.5)));
          errors.push(thrown(() => ctx.indicators.ema(BTC, 100_001)));
          errors.push(thrown(() => ctx.indicators.rsi(BTC, -3)));
          errors.push(thrown(() => ctx.indicators.atr(BTC, '7')));
          errors.push(thrown(() => ctx.indicators.bollinger(BTC, 20, 0)));
          errors.push(thrown(() => ctx.indicators.bollinger(BTC, 20, 101)));
          errors.push(thrown(() => ctx.indicators.bollinger(BTC, 0)));
          ctx.indicators.sma(BTC, 3); // 1 series of 4
          ctx.indicators.ema(BTC, 3); // 2 of 4
          errors.push(thrown(() => ctx.indicators.bollinger(BTC))); // 3 more would make 5
          ctx.indicators.rsi(BTC); // 3 of 4
          ctx.indicators.atr(BTC); // 4 of 4
          errors.push(thrown(() => ctx.indicators.sma(BTC, 4)));
        },
      }),
      { config: { maxIndicators: 4 }, indicators: () => [[N, 1]] },
    );
    const type = (message: string) => ({ name: 'TypeError', message });
    expect(errors).toEqual([
      type('sma period must be an integer from 1 to 100000, got 0'),
      type('sma period must be an integer from 1 to 100000, got 2.5'),
      type('ema period must be an integer from 1 to 100000, got 100001'),
      type('rsi period must be an integer from 1 to 100000, got -3'),
      type('atr period must be an integer from 1 to 100000, got "7"'),
      type('bollinger multiplier must be a number in (0, 100], got 0'),
      type('bollinger multiplier must be a number in (0, 100], got 101'),
      type('bollinger period must be an integer from 1 to 100000, got 0'),
      { name: 'RangeError', message: 'A strategy can use at most 4 indicator series' },
      { name: 'RangeError', message: 'A strategy can use at most 4 indicator series' },
    ]);
    // nothing refused reached the host
    expect(registered).toEqual([
      [0, 0, 3, 0],
      [1, 0, 3, 0],
      [2, 0, 14, 0],
      [3, 0, 14, 0],
    ]);
  });

  it('of another symbol are that symbol series, asked for with its index', () => {
    const seen: unknown[] = [];
    const { registered } = runBacktest(
      twoSymbols([flat(100), flat(100)], [flat(10), flat(10)]),
      scripted({}, { after: (ctx, c) => seen.push([c.symbol, ctx.indicators.sma(ETH, 2), ctx.indicators.sma(BTC, 2)]) }),
      // the merged candles are BTC 0, ETH 0, BTC 1, ETH 1: a symbol's series moves on its own candles only
      { indicators: (_k, s) => [s === 1 ? [N, N, 10, 10, 11] : [N, 100, 100, 101, 101]] },
    );
    expect(registered).toEqual([
      [0, 1, 2, 0],
      [0, 0, 2, 0],
    ]);
    expect(seen).toEqual([
      [BTC, N, 100],
      [ETH, 10, 100],
      [BTC, 10, 101],
      [ETH, 11, 101],
    ]);
  });
});

describe('several symbols', () => {
  it('share one account; candles of one time run in the order of the symbols; an order fills on its own symbol next candle', () => {
    const calls: string[] = [];
    const seen: unknown[] = [];
    const { trades, final } = runBacktest(
      twoSymbols([flat(100), flat(100), flat(110), flat(110)], [flat(10), flat(10), flat(12), flat(12)]),
      scripted(
        {
          0: (ctx) => {
            ctx.buy(BTC, { quantity: 1 });
            ctx.buy(ETH, { quantity: 10 });
          },
          // ETH at minute 0: its order, placed at minute 0, waits for a later ETH candle
          1: (ctx) => seen.push(ctx.orders(ETH).map((o: any) => o.id)),
          // BTC at minute 1: BTC filled at 100, ETH not yet
          2: (ctx) => seen.push(ctx.position(BTC).entryPrice, ctx.position(ETH)),
          3: (ctx) => seen.push(ctx.position(ETH).entryPrice),
          // ETH at minute 2: 10,000 + 1 x (110 - 100) + 10 x (12 - 10)
          5: (ctx) => seen.push(ctx.equity(), ctx.cash()),
        },
        { after: (ctx, c) => calls.push(`${c.symbol} ${c.time / MIN} ${ctx.now() / MIN}`) },
      ),
    );
    expect(calls).toEqual([`${BTC} 0 0`, `${ETH} 0 0`, `${BTC} 1 1`, `${ETH} 1 1`, `${BTC} 2 2`, `${ETH} 2 2`, `${BTC} 3 3`, `${ETH} 3 3`]);
    expect(seen).toEqual([['o2'], 100, null, 10, 10_030, 10_000]);
    // closed at the end at each symbol's last close, in the order of the symbols
    expect(trades.map((t) => [t.s, t.entryPrice, t.exitPrice, t.quantity, t.pnl, t.reason])).toEqual([
      [0, 100, 110, 1, 10, 'end'],
      [1, 10, 12, 10, 20, 'end'],
    ]);
    // cash, then each symbol's mark: the capital plus its own P&L
    expect(final).toEqual([10_030, 10_010, 10_020]);
  });

  it('cancelAll(symbol) and orders(symbol) keep to that symbol', () => {
    const seen: unknown[] = [];
    runBacktest(
      twoSymbols([flat(100)], [flat(10)]),
      scripted({
        0: (ctx) => {
          ctx.buy(BTC, { type: 'limit', price: 90, quantity: 1 });
          ctx.buy(ETH, { type: 'limit', price: 9, quantity: 1 });
          ctx.buy(ETH, { type: 'limit', price: 8, quantity: 1 });
          seen.push(
            ctx.orders(ETH).map((o: any) => o.id),
            ctx.cancelAll(ETH),
            ctx.orders().map((o: any) => o.id),
          );
        },
      }),
    );
    expect(seen).toEqual([['o2', 'o3'], 2, ['o1']]);
  });
});

describe('batches', () => {
  /* Eight candles traded by a strategy that reads an indicator and uses exits; sent in one batch or several. */
  const rows: Row[] = [
    flat(100), // 0: sma 100 > 99: buy 1 with a stop-loss at 95 and a take-profit at 106
    flat(100), // 1: fills at 100
    [100, 103, 99, 102], // 2
    [102, 107, 101, 104], // 3: the high 107 passes 106: take-profit at 106 (+6)
    flat(104), // 4: sma 101 < 104: sell 1 with a stop-loss at 110
    [104, 105, 103, 104], // 5: fills at 104
    [104, 111, 103, 108], // 6: the high 111 reaches 110: stop-loss at 110 (-6)
    flat(108), // 7
  ];
  const sma = [N, 100, 100, 100, 100, 101, 101, 101, 101];
  const strategy = () =>
    scripted(
      {
        0: (ctx, c) => ctx.indicators.sma(BTC, 4) < c.close + 1 && ctx.buy(BTC, { quantity: 1, stopLoss: 95, takeProfit: 106 }),
        4: (ctx, c) => ctx.indicators.sma(BTC, 4) < c.close && ctx.sell(BTC, { quantity: 1, stopLoss: 110 }),
      },
      { after: (ctx, c) => ctx.log(c.time / MIN, ctx.equity()) },
    );
  const run = (batches: number[]) => runBacktest(bars(rows), strategy(), { batches, indicators: () => [sma] });

  it('give the trades of the hand-computed run', () => {
    const { trades, final } = run([8]);
    expect(trades.map((t) => [t.dir, t.entryTime / MIN, t.entryPrice, t.exitTime / MIN, t.exitPrice, t.pnl, t.reason])).toEqual([
      [1, 1, 100, 3, 106, 6, 'takeProfit'],
      [-1, 5, 104, 6, 110, -6, 'stopLoss'],
    ]);
    expect(final).toEqual([10_000, 10_000]);
  });

  it('split any way give the same trades, account changes, logs and final marks as one batch', () => {
    const whole = run([8]);
    const wholeLogs = whole.logs.take();
    expect(wholeLogs.map(([t, , text]) => [t / MIN, text])).toEqual([
      [0, '0 10000'],
      [1, '1 10000'],
      [2, '2 10002'],
      [3, '3 10006'],
      [4, '4 10006'],
      [5, '5 10006'],
      [6, '6 10000'],
      [7, '7 10000'],
    ]);
    for (const batches of [[1], [3, 5], [5, 3], [2, 2, 2, 2], [7, 1]]) {
      const split = run(batches);
      expect(split.trades, `batches ${batches}`).toEqual(whole.trades);
      expect(split.states, `batches ${batches}`).toEqual(whole.states);
      expect(split.final).toEqual(whole.final);
      expect(split.logs.take()).toEqual(wholeLogs);
      expect(split.registered).toEqual([[0, 0, 4, 0]]);
    }
  });
});

describe('account changes and flags', () => {
  it('report the position and cash after each candle whose fills changed them; runBatch flags trades, logs and changes', () => {
    const { states, flags } = runBacktest(
      bars([flat(100), flat(100), flat(100), flat(120)]),
      scripted({ 0: (ctx) => ctx.buy(BTC, { quantity: 2 }), 1: (ctx) => ctx.sell(BTC, { quantity: 1 }) }),
      { config: { taker: 0.001 }, batches: [1, 1, 1, 1] },
    );
    expect(states).toEqual([
      // candle 1: long 2 at 100, fee 2 x 100 x 0.001 = 0.2
      { index: 1, s: 0, qty: 2, entry: 100, cash: expect.closeTo(9999.8, 9), realized: expect.closeTo(-0.2, 12) },
      // candle 2: sold 1 at 100, fee 0.1
      { index: 2, s: 0, qty: 1, entry: 100, cash: expect.closeTo(9999.7, 9), realized: expect.closeTo(-0.3, 12) },
    ]);
    // 0: nothing; 1: a change; 2: a trade and a change; 3: nothing (the end comes with finish)
    expect(flags).toEqual([0, 4, 5, 0]);
    const logged = runBacktest(bars([flat(100)]), scripted({ 0: (ctx) => ctx.log('hello') }));
    expect(logged.flags).toEqual([2]);
  });
});

describe('warm-up candles', () => {
  it('feed indicators but never call onCandle', () => {
    const seen: unknown[] = [];
    const candles = bars([flat(100), flat(100), flat(100), flat(100)]).map((b, i) => ({ ...b, warmup: i < 2 }));
    runBacktest(candles, scripted({}, { after: (ctx, c) => seen.push([c.time / MIN, ctx.indicators.sma(BTC, 2)]) }), {
      indicators: () => [[N, N, 100, 100, 100]],
    });
    expect(seen).toEqual([
      [2, 100],
      [3, 100],
    ]);
  });
});

describe('the log limit', () => {
  it('ends the run once passed, even when the strategy catches the throw', () => {
    const caught: string[] = [];
    let calls = 0;
    const strategy = {
      onCandle(ctx: any) {
        calls++;
        try {
          ctx.log('candle', calls);
        } catch (e) {
          caught.push((e as Error).message);
        }
      },
    };
    expect(() => runBacktest(bars([flat(100), flat(100), flat(100), flat(100), flat(100)]), strategy, { maxLogLines: 3 })).toThrow('Log limit reached');
    expect(caught).toEqual(['Log limit reached']);
    expect(calls).toBe(4);
  });

  it('passed while the module loaded (the throw caught there), ends the run after the first call', () => {
    let calls = 0;
    const beforeStart = (logs: LogBuffer) => {
      logs.log('loading');
      expect(() => logs.log('again')).toThrow('Log limit reached');
    };
    const strategy = { onCandle: () => calls++ };
    expect(() => runBacktest(bars([flat(100), flat(100), flat(100)]), strategy, { maxLogLines: 1, beforeStart })).toThrow('Log limit reached');
    expect(calls).toBe(1);
  });

  it('counts characters too, and applies to onOrder (caught there too)', () => {
    const strategy = scripted(
      { 0: (ctx) => ctx.buy(BTC, { quantity: 1 }) },
      {
        onOrder: (ctx) => {
          try {
            ctx.log('x'.repeat(20));
          } catch {}
        },
      },
    );
    expect(() => runBacktest(bars([flat(100), flat(100)]), strategy, { maxLogBytes: 10 })).toThrow('Log limit reached');
    expect(() => runBacktest(bars([flat(100), flat(100)]), strategy, { maxLogBytes: 20 })).not.toThrow();
  });

  it('lines are stamped with the candle time', () => {
    const { logs } = runBacktest(bars([flat(100), flat(100)]), scripted({}, { after: (ctx, c) => ctx.log('close', c.close, { t: c.time }) }));
    expect(JSON.parse(logs.drain())).toEqual([
      [0, 'info', 'close 100 {"t":0}'],
      [MIN, 'info', 'close 100 {"t":60000}'],
    ]);
  });
});

describe('ctx', () => {
  it('reads the run: mode, frozen params and symbols, clock, random, cash, equity and the position', () => {
    const seen: any = {};
    runBacktest(
      bars([flat(100), flat(100), [100, 106, 99, 105]]),
      scripted({
        0: (ctx) => {
          Object.assign(seen, {
            mode: ctx.mode,
            params: ctx.params,
            symbols: ctx.symbols,
            random: [ctx.random(), ctx.random()],
            now: ctx.now(),
            position: ctx.position(BTC),
          });
          ctx.buy(BTC, { quantity: 2, stopLoss: 90, takeProfit: 130 });
        },
        2: (ctx) => {
          seen.later = {
            now: ctx.now(),
            cash: ctx.cash(),
            equity: ctx.equity(),
            position: { ...ctx.position(BTC) },
            same: ctx.position(BTC) === ctx.position(BTC),
          };
        },
      }),
      { config: { params: { fast: 3, nested: { list: [1, 2] } }, taker: 0.001, leverage: 2 }, random: () => 0.75 },
    );
    expect(seen.mode).toBe('backtest');
    expect(seen.params).toEqual({ fast: 3, nested: { list: [1, 2] } });
    expect(Object.isFrozen(seen.params) && Object.isFrozen(seen.params.nested) && Object.isFrozen(seen.params.nested.list)).toBe(true);
    expect(seen.symbols).toEqual([BTC]);
    expect(Object.isFrozen(seen.symbols)).toBe(true);
    expect(seen.random).toEqual([0.75, 0.75]);
    expect(seen.now).toBe(0);
    expect(seen.position).toBeNull();
    expect(seen.later).toEqual({
      now: 2 * MIN,
      // 10,000 less the fee 2 x 100 x 0.001 = 0.2
      cash: expect.closeTo(9999.8, 9),
      // marked at the close 105: + 2 x 5
      equity: expect.closeTo(10_009.8, 9),
      position: {
        symbol: BTC,
        side: 'long',
        quantity: 2,
        entryPrice: 100,
        entryTime: MIN,
        // 2 x 100 / 2
        margin: 100,
        stopLoss: 90,
        takeProfit: 130,
        trailingStop: null,
        // 100 x (1 - 1/2 + 0.005)
        liquidationPrice: expect.closeTo(50.5, 9),
        funding: 0,
        unrealizedPnl: 10,
      },
      same: true,
    });
  });

  it('a strategy without onCandle, or with an onOrder that is not a function, is refused', () => {
    const cfg = configFor(bars([flat(100)]));
    const env = { logs: createLogBuffer({ maxLines: 1, maxBytes: 1, scope: '', now: () => 0 }), random: () => 0, startTime: 0 };
    const none = { register: () => new ArrayBuffer(0), history: () => new ArrayBuffer(0) };
    expect(thrown(() => createBacktestRun(cfg, {}, none, env))).toEqual({
      name: 'TypeError',
      message: 'The strategy must export a function onCandle(ctx, candle)',
    });
    expect(thrown(() => createBacktestRun(cfg, { onCandle() {}, onOrder: 1 }, none, env))).toEqual({
      name: 'TypeError',
      message: 'onOrder, when exported, must be a function',
    });
  });

  it('the run clock starts at the start time and answers the candle being processed', () => {
    const cfg = configFor(bars([flat(100)]));
    const run = createBacktestRun(
      cfg,
      { onCandle() {} },
      { register: () => new ArrayBuffer(0), history: () => new ArrayBuffer(0) },
      {
        logs: createLogBuffer({ maxLines: 1, maxBytes: 1, scope: '', now: () => 0 }),
        random: () => 0,
        startTime: 42,
      },
    );
    expect(run.now()).toBe(42);
  });
});
