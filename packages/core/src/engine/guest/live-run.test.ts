import { describe, expect, it } from 'vitest';
import { createLiveRun, type HostInd } from './live-run.js';
import { createLogBuffer } from './log-buffer.js';
import { BTC, bars, ETH, flat, MIN, runBacktest, scripted, thrown } from './testing/backtest-harness.js';

/*
 * The live run in the host: the account state comes in as JSON with each call (what the exchange
 * and the Store say), the strategy's orders go out as intents (deployments/live-session.ts and
 * deployment-runner.ts turn them into exchange orders). Stop-loss, take-profit and trailing
 * stops are kept here and checked on each closed candle.
 */

type Ohlc = [open: number, high: number, low: number, close: number];

const candle = (minute: number, [open, high, low, close]: Ohlc, symbol = BTC) => ({ symbol, time: minute * MIN, open, high, low, close, volume: 1 });

const position = (symbol: string, side: 'long' | 'short', quantity: number, entryPrice: number, entryTime: number) => ({
  symbol,
  side,
  quantity,
  entryPrice,
  entryTime,
  margin: quantity * entryPrice,
  liquidationPrice: null,
  unrealizedPnl: 0,
});
const long = (quantity: number, entryPrice: number, entryTime = 0, symbol = BTC) => position(symbol, 'long', quantity, entryPrice, entryTime);
const short = (quantity: number, entryPrice: number, entryTime = 0, symbol = BTC) => position(symbol, 'short', quantity, entryPrice, entryTime);

/** An open order as the host lists it in the state. */
const hostOrder = (id: string, over: object = {}) => ({
  id,
  symbol: BTC,
  side: 'buy',
  type: 'limit',
  price: 90,
  quantity: 1,
  size: null,
  stopLoss: null,
  takeProfit: null,
  reduceOnly: false,
  closeAll: false,
  tag: null,
  time: 0,
  ...over,
});

const account = (positions: object[] = [], orders: object[] = [], money = { cash: 1000, equity: 1000 }) => ({ ...money, positions, orders });

/** A filled order event as the host sends it. */
const filled = (id: string, side: 'buy' | 'sell', price: number, time: number) => ({
  id,
  symbol: BTC,
  side,
  type: 'market',
  status: 'filled',
  quantity: 1,
  price,
  fee: 0,
  time,
  reason: null,
  tag: null,
});

type Step = (ctx: any, arg: any) => unknown;

/**
 * A live run of a strategy that does, in each call, what the test passes with it; each call
 * answers the parsed JSON result (intents, logs, orderSeq) and what the step returned.
 */
function liveRun(options: { symbols?: string[]; params?: unknown; orderSeq?: number; maxLogLines?: number; hostInd?: HostInd; random?: () => number } = {}) {
  let step: Step | null = null;
  let value: unknown;
  const events: any[] = [];
  const logs = createLogBuffer({ maxLines: options.maxLogLines ?? 100, maxBytes: 10_000, scope: ' in one call', now: () => run.now() });
  const run = createLiveRun(
    {
      symbols: options.symbols ?? [BTC],
      timeframes: [{ name: '1m', ms: MIN }],
      params: options.params ?? {},
      ...(options.orderSeq === undefined ? {} : { orderSeq: options.orderSeq }),
    },
    {
      onCandle(ctx: any, c: any) {
        value = step?.(ctx, c);
      },
      onOrder(ctx: any, e: any) {
        events.push(e);
        value = step?.(ctx, e);
      },
    },
    {
      ind:
        options.hostInd ??
        (() => {
          throw new Error('no indicators here');
        }),
      history: () => {
        throw new Error('no history here');
      },
    },
    { logs, random: options.random ?? (() => 0.5), startTime: 0 },
  );
  const answer = (json: string) => ({ ...(JSON.parse(json) as { intents: any[]; logs: any[]; orderSeq: number }), value });
  return {
    run,
    events,
    candle(state: object, c: object, fn: Step | null = null, callStrategy = true) {
      step = fn;
      value = undefined;
      return answer(run.candle(JSON.stringify(state), JSON.stringify(c), callStrategy));
    },
    order(state: object, event: object, fn: Step | null = null) {
      step = fn;
      value = undefined;
      return answer(run.order(JSON.stringify(state), JSON.stringify(event)));
    },
  };
}

/** The place intent of a close made for a crossed level. */
const exitIntent = (id: string, side: 'buy' | 'sell', quantity: number, minute: number, exit: string | null) => ({
  kind: 'place',
  order: {
    id,
    symbol: BTC,
    side,
    type: 'market',
    price: null,
    quantity,
    size: null,
    stopLoss: null,
    takeProfit: null,
    reduceOnly: true,
    closeAll: true,
    exit,
    tag: null,
    time: minute * MIN,
  },
});

describe('orders become intents', () => {
  it('buy and sell: a place intent with the checked options, ids continuing the deployment sequence', () => {
    const live = liveRun({ orderSeq: 41 });
    const r = live.candle(account(), candle(1, flat(100)), (ctx) => [
      ctx.buy(BTC, { type: 'limit', price: 95, quantity: 1, stopLoss: 90, tag: 'dip' }),
      ctx.sell(BTC, { size: 0.5, reduceOnly: true }),
      ctx.orders().map((o: any) => o.id),
    ]);
    expect(r.value).toEqual(['o42', 'o43', ['o42', 'o43']]);
    expect(r.intents).toEqual([
      {
        kind: 'place',
        order: {
          id: 'o42',
          symbol: BTC,
          side: 'buy',
          type: 'limit',
          price: 95,
          quantity: 1,
          size: null,
          stopLoss: 90,
          takeProfit: null,
          reduceOnly: false,
          closeAll: false,
          tag: 'dip',
          time: MIN,
        },
      },
      {
        kind: 'place',
        order: {
          id: 'o43',
          symbol: BTC,
          side: 'sell',
          type: 'market',
          price: null,
          quantity: null,
          size: 0.5,
          stopLoss: null,
          takeProfit: null,
          reduceOnly: true,
          closeAll: false,
          tag: null,
          time: MIN,
        },
      },
    ]);
    expect(r.orderSeq).toBe(43);
    expect(r.logs).toEqual([]);
    // the next call starts with no intents; the sequence goes on
    const next = live.candle(account(), candle(2, flat(100)), (ctx) => ctx.buy(BTC, { type: 'stop', price: 120, quantity: 2 }));
    expect(next.value).toBe('o44');
    expect(next.intents.map((i) => i.order.id)).toEqual(['o44']);
    expect(next.orderSeq).toBe(44);
  });

  it('ctx.orders(): the host open orders as frozen snapshots (the fields a backtest shows), per symbol', () => {
    const live = liveRun({ symbols: [BTC, ETH] });
    const r = live.candle(account([], [hostOrder('o5', { tag: 't', stopLoss: 80 }), hostOrder('o6', { symbol: ETH })]), candle(1, flat(100)), (ctx) => [
      ctx.orders(BTC),
      Object.isFrozen(ctx.orders()[0]),
      ctx.orders().length,
      ctx.orders(ETH).map((o: any) => o.id),
    ]);
    expect(r.value).toEqual([
      [
        {
          id: 'o5',
          symbol: BTC,
          side: 'buy',
          type: 'limit',
          price: 90,
          quantity: 1,
          size: null,
          stopLoss: 80,
          takeProfit: null,
          reduceOnly: false,
          tag: 't',
          time: 0,
        },
      ],
      true,
      2,
      ['o6'],
    ]);
  });

  it('close: a reduce-only market close of the whole position, once per symbol; null when flat', () => {
    const live = liveRun();
    const r = live.candle(account([long(2, 100)]), candle(1, flat(100)), (ctx) => [ctx.close(BTC), ctx.close(BTC)]);
    expect(r.value).toEqual(['o1', 'o1']);
    expect(r.intents).toEqual([exitIntent('o1', 'sell', 2, 1, null)]);
    const flatCall = live.candle(account(), candle(2, flat(100)), (ctx) => ctx.close(BTC));
    expect(flatCall.value).toBeNull();
    expect(flatCall.intents).toEqual([]);
    // the host already has this deployment's close: the same id again, nothing new
    const pending = live.candle(
      account([short(3, 100)], [hostOrder('o9', { side: 'buy', type: 'market', price: null, quantity: 3, reduceOnly: true, closeAll: true })]),
      candle(3, flat(100)),
      (ctx) => ctx.close(BTC),
    );
    expect(pending.value).toBe('o9');
    expect(pending.intents).toEqual([]);
    const shortClose = live.candle(account([short(3, 100)]), candle(4, flat(100)), (ctx) => ctx.close(BTC));
    expect(shortClose.intents).toEqual([exitIntent('o2', 'buy', 3, 4, null)]);
  });

  it('cancel and cancelAll: a cancel intent per open order, the host orders or this call ones', () => {
    const live = liveRun({ symbols: [BTC, ETH] });
    const state = account([], [hostOrder('o5'), hostOrder('o6', { symbol: ETH })]);
    const one = live.candle(state, candle(1, flat(100)), (ctx) => [
      ctx.cancel('o5'),
      ctx.cancel('o5'),
      ctx.cancel('nope'),
      ctx.cancel(5),
      ctx.orders().map((o: any) => o.id),
    ]);
    expect(one.value).toEqual([true, false, false, false, ['o6']]);
    expect(one.intents).toEqual([{ kind: 'cancel', id: 'o5' }]);
    const all = live.candle(state, candle(2, flat(100)), (ctx) => [ctx.cancelAll(ETH), ctx.cancelAll(), ctx.orders().length]);
    expect(all.value).toEqual([1, 1, 0]);
    expect(all.intents).toEqual([
      { kind: 'cancel', id: 'o6' },
      { kind: 'cancel', id: 'o5' },
    ]);
    const own = live.candle(account(), candle(3, flat(100)), (ctx) => ctx.cancel(ctx.buy(BTC, { quantity: 1 })));
    expect(own.value).toBe(true);
    expect(own.intents.map((i) => [i.kind, i.order?.id ?? i.id])).toEqual([
      ['place', 'o1'],
      ['cancel', 'o1'],
    ]);
  });

  it('at most 1,000 open orders, counting the host ones: the next is a RangeError', () => {
    const live = liveRun();
    const many = Array.from({ length: 1000 }, (_, k) => hostOrder(`h${k}`));
    const r = live.candle(account([], many), candle(1, flat(100)), (ctx) => [
      thrown(() => ctx.buy(BTC, { quantity: 1 })),
      ctx.cancel('h0'),
      ctx.buy(BTC, { quantity: 1 }),
    ]);
    expect(r.value).toEqual([{ name: 'RangeError', message: 'Too many open orders (at most 1000)' }, true, 'o1']);
  });
});

describe('argument checks', () => {
  /* Bad calls, each with the message it must throw, the same in a backtest and live. */
  const bad: Array<[(ctx: any) => unknown, string]> = [
    [(ctx) => ctx.buy(BTC, 5), 'order options must be an object'],
    [(ctx) => ctx.buy(BTC, { type: 'twap', quantity: 1 }), 'order type must be "market", "limit" or "stop", got twap'],
    [(ctx) => ctx.sell(BTC, { type: 'limit', quantity: 1 }), 'limit orders need a positive price, got undefined'],
    [(ctx) => ctx.buy(BTC, { type: 'stop', price: -5, quantity: 1 }), 'stop orders need a positive price, got -5'],
    [(ctx) => ctx.buy(BTC, { price: 100, quantity: 1 }), 'market orders take no price: they fill at the next open'],
    [(ctx) => ctx.buy(BTC, { quantity: 1, size: 0.5 }), 'give either quantity (units) or size (fraction of equity), not both or neither'],
    [(ctx) => ctx.buy(BTC), 'give either quantity (units) or size (fraction of equity), not both or neither'],
    [(ctx) => ctx.buy(BTC, { quantity: -1 }), 'quantity must be a positive number, got -1'],
    [(ctx) => ctx.buy(BTC, { quantity: Number.POSITIVE_INFINITY }), 'quantity must be a positive number, got Infinity'],
    [(ctx) => ctx.buy(BTC, { size: 1.5 }), 'size is a fraction of equity in (0, 1], got 1.5'],
    [(ctx) => ctx.buy(BTC, { size: 0 }), 'size is a fraction of equity in (0, 1], got 0'],
    [(ctx) => ctx.buy(BTC, { quantity: 1, reduceOnly: 'yes' }), 'reduceOnly must be a boolean'],
    [(ctx) => ctx.buy(BTC, { quantity: 1, tag: 'x'.repeat(101) }), 'tag must be a string of at most 100 characters'],
    [(ctx) => ctx.buy(BTC, { quantity: 1, tag: 5 }), 'tag must be a string of at most 100 characters'],
    [(ctx) => ctx.buy(BTC, { quantity: 1, stopLoss: 0 }), 'stopLoss must be a positive price, got 0'],
    [(ctx) => ctx.buy(BTC, { quantity: 1, takeProfit: Number.NaN }), 'takeProfit must be a positive price, got NaN'],
    [(ctx) => ctx.buy(BTC, { quantity: 1, trailingStop: { fraction: 1 } }), 'trailingStop.fraction must be a number in (0, 1), got 1'],
    [(ctx) => ctx.setStopLoss(BTC, 'x'), 'stopLoss must be a positive price, got x'],
    [(ctx) => ctx.setTakeProfit(BTC, -1), 'takeProfit must be a positive price, got -1'],
    [(ctx) => ctx.setTrailingStop(BTC, { distance: 0 }), 'trailingStop.distance must be a positive price distance, got 0'],
    [(ctx) => ctx.setTrailingStop(BTC, {}), 'trailingStop must be { distance } (a price distance) or { fraction } (of the best price), got {}'],
  ];
  const expected = bad.map(([, message]) => ({ name: 'TypeError', message }));
  const tryAll = (ctx: any) => bad.map(([call]) => thrown(() => call(ctx)));

  it('throw the same TypeErrors live as in a backtest', () => {
    let inBacktest: unknown;
    runBacktest(bars([flat(100)]), scripted({ 0: (ctx) => (inBacktest = tryAll(ctx)) }));
    expect(inBacktest).toEqual(expected);
    const r = liveRun().candle(account(), candle(1, flat(100)), tryAll);
    expect(r.value).toEqual(expected);
    expect(r.intents).toEqual([]);
  });

  it('an unknown symbol is a TypeError naming the symbols of the deployment', () => {
    const calls: Array<(ctx: any) => unknown> = [
      (ctx) => ctx.buy('X', { quantity: 1 }),
      (ctx) => ctx.sell('X', { quantity: 1 }),
      (ctx) => ctx.position('X'),
      (ctx) => ctx.orders('X'),
      (ctx) => ctx.close('X'),
      (ctx) => ctx.cancelAll('X'),
      (ctx) => ctx.setStopLoss('X', 1),
      (ctx) => ctx.setTakeProfit('X', 1),
      (ctx) => ctx.setTrailingStop('X', { distance: 1 }),
      (ctx) => ctx.indicators.sma('X', 3),
      (ctx) => ctx.indicators.bollinger('X'),
    ];
    const r = liveRun({ symbols: [BTC, ETH] }).candle(account(), candle(1, flat(100)), (ctx) => calls.map((call) => thrown(() => call(ctx))));
    expect(r.value).toEqual(calls.map(() => ({ name: 'TypeError', message: `Unknown symbol X; this deployment trades ${BTC}, ${ETH}` })));
  });
});

describe('stop-loss and take-profit', () => {
  it('a crossed stop-loss becomes a close intent marked stopLoss before onCandle, and the levels are gone', () => {
    const live = liveRun();
    const held = account([long(1, 100)]);
    const set = live.candle(held, candle(1, [100, 101, 99, 100]), (ctx) => [ctx.setStopLoss(BTC, 95), ctx.setTakeProfit(BTC, 110), { ...ctx.position(BTC) }]);
    expect(set.value).toEqual([
      true,
      true,
      {
        symbol: BTC,
        side: 'long',
        quantity: 1,
        entryPrice: 100,
        entryTime: 0,
        margin: 100,
        stopLoss: 95,
        takeProfit: 110,
        trailingStop: null,
        liquidationPrice: null,
        unrealizedPnl: 0,
      },
    ]);
    expect(set.intents).toEqual([]);
    const quiet = live.candle(held, candle(2, [100, 110, 96, 100]), (ctx) => ctx.position(BTC).stopLoss);
    expect(quiet.intents).toEqual([]);
    expect(quiet.value).toBe(95);
    // the low touches 95 (a stop fills on touch); the take-profit is crossed too: the stop-loss wins
    const hit = live.candle(held, candle(3, [99, 111, 95, 96]), (ctx) => [
      ctx.position(BTC).stopLoss,
      ctx.position(BTC).takeProfit,
      ctx.close(BTC),
      ctx.orders().map((o: any) => o.id),
    ]);
    expect(hit.intents).toEqual([exitIntent('o1', 'sell', 1, 3, 'stopLoss')]);
    expect(hit.value).toEqual([null, null, 'o1', ['o1']]);
  });

  it('take-profit needs the price to trade through it; on a short the levels mirror', () => {
    const live = liveRun();
    const longHeld = account([long(1, 100)]);
    live.candle(longHeld, candle(1, flat(100)), (ctx) => ctx.setTakeProfit(BTC, 110));
    expect(live.candle(longHeld, candle(2, [100, 110, 99, 105])).intents).toEqual([]);
    expect(live.candle(longHeld, candle(3, [105, 111, 104, 110])).intents).toEqual([exitIntent('o1', 'sell', 1, 3, 'takeProfit')]);

    const live2 = liveRun();
    const shortHeld = account([short(2, 100)]);
    live2.candle(shortHeld, candle(1, flat(100)), (ctx) => [ctx.setStopLoss(BTC, 105), ctx.setTakeProfit(BTC, 90)]);
    expect(live2.candle(shortHeld, candle(2, [100, 104, 90, 95])).intents).toEqual([]);
    expect(live2.candle(shortHeld, candle(3, [95, 96, 89, 90])).intents).toEqual([exitIntent('o1', 'buy', 2, 3, 'takeProfit')]);
    const live3 = liveRun();
    live3.candle(shortHeld, candle(1, flat(100)), (ctx) => ctx.setStopLoss(BTC, 105));
    expect(live3.candle(shortHeld, candle(2, [100, 105, 99, 101])).intents).toEqual([exitIntent('o1', 'buy', 2, 2, 'stopLoss')]);
  });

  it('are checked on candles that do not call the strategy', () => {
    const live = liveRun();
    const held = account([long(1, 100)]);
    live.candle(held, candle(1, flat(100)), (ctx) => ctx.setStopLoss(BTC, 95));
    const r = live.candle(held, candle(2, [96, 97, 90, 91]), () => 'called', false);
    expect(r.value).toBeUndefined();
    expect(r.intents).toEqual([exitIntent('o1', 'sell', 1, 2, 'stopLoss')]);
  });

  it('setStopLoss / setTakeProfit: null removes the level; false when flat', () => {
    const live = liveRun();
    const r = live.candle(account([long(1, 100)]), candle(1, flat(100)), (ctx) => [
      ctx.setStopLoss(BTC, 95),
      ctx.setStopLoss(BTC, null),
      ctx.position(BTC).stopLoss,
      ctx.setTakeProfit(BTC, undefined),
    ]);
    expect(r.value).toEqual([true, true, null, true]);
    const flatCall = live.candle(account(), candle(2, flat(100)), (ctx) => [
      ctx.setStopLoss(BTC, 95),
      ctx.setTakeProfit(BTC, 105),
      ctx.setTrailingStop(BTC, { distance: 1 }),
    ]);
    expect(flatCall.value).toEqual([false, false, false]);
  });

  it('of a symbol no longer held are dropped, and do not come back with a new position', () => {
    const live = liveRun();
    live.candle(account([long(1, 100)]), candle(1, flat(100)), (ctx) => [
      ctx.setStopLoss(BTC, 95),
      ctx.setTakeProfit(BTC, 110),
      ctx.setTrailingStop(BTC, { distance: 5 }),
    ]);
    const gone = live.candle(account(), candle(2, [100, 120, 80, 100]), (ctx) => ctx.position(BTC));
    expect(gone.value).toBeNull();
    expect(gone.intents).toEqual([]);
    const again = live.candle(account([long(1, 100, 2 * MIN)]), candle(3, [100, 120, 80, 100]), (ctx) => {
      const p = ctx.position(BTC);
      return [p.stopLoss, p.takeProfit, p.trailingStop];
    });
    expect(again.intents).toEqual([]);
    expect(again.value).toEqual([null, null, null]);
  });
});

describe('exits attached to an order', () => {
  it('apply once onOrder reports the fill that opened the position', () => {
    const live = liveRun();
    const placed = live.candle(account(), candle(1, flat(100)), (ctx) => ctx.buy(BTC, { quantity: 1, stopLoss: 95, takeProfit: 120, tag: 'in' }));
    expect(placed.value).toBe('o1');
    const event = { ...filled('o1', 'buy', 101, 2 * MIN + 500), tag: 'in' };
    const r = live.order(account([long(1, 101, 2 * MIN)]), event, (ctx, e) => [
      ctx.now(),
      Object.isFrozen(e),
      ctx.position(BTC).stopLoss,
      ctx.position(BTC).takeProfit,
    ]);
    expect(live.events).toEqual([event]);
    expect(r.value).toEqual([2 * MIN + 500, true, 95, 120]);
  });

  it('do not apply when the order was cancelled, or filled against the position', () => {
    const live = liveRun();
    const held = account([long(1, 100)]);
    live.candle(held, candle(1, flat(100)), (ctx) => [ctx.buy(BTC, { quantity: 1, stopLoss: 90 }), ctx.sell(BTC, { quantity: 0.5, takeProfit: 80 })]);
    const cancelled = live.order(
      held,
      { ...filled('o1', 'buy', 0, 2 * MIN), status: 'cancelled', quantity: 0, reason: 'cancelled' },
      (ctx) => ctx.position(BTC).stopLoss,
    );
    expect(cancelled.value).toBeNull();
    // a fill reported after the cancellation (the exchange's order of events) attaches nothing either
    expect(live.order(held, filled('o1', 'buy', 100, 2 * MIN), (ctx) => ctx.position(BTC).stopLoss).value).toBeNull();
    expect(live.order(held, filled('o2', 'sell', 100, 2 * MIN), (ctx) => ctx.position(BTC).takeProfit).value).toBeNull();
  });

  it('onOrder keeps the clock at the latest time seen, and orders placed there carry it', () => {
    const live = liveRun();
    live.candle(account(), candle(5, flat(100)));
    const r = live.order(account(), { ...filled('o7', 'buy', 100, 3 * MIN), status: 'cancelled' }, (ctx) => [ctx.now(), ctx.buy(BTC, { quantity: 1 })]);
    expect(r.value).toEqual([5 * MIN, 'o1']);
    expect(r.intents[0].order.time).toBe(5 * MIN);
  });
});

describe('trailing stops', () => {
  it('start at the fill price, follow each later candle best price (not the entry candle), then close as trailingStop', () => {
    const live = liveRun();
    live.candle(account(), candle(1, flat(100)), (ctx) => ctx.buy(BTC, { quantity: 1, stopLoss: 90, trailingStop: { distance: 5 } }));
    const held = account([long(1, 101, 2 * MIN)]);
    // filled at 101: the stop is 101 - 5 = 96
    expect(live.order(held, filled('o1', 'buy', 101, 2 * MIN), (ctx) => ctx.position(BTC).trailingStop).value).toBe(96);
    // the entry candle: its high 110 may have come before the fill, so the stop stays at 96
    const entry = live.candle(held, candle(2, [101, 110, 100, 108]), (ctx) => ctx.position(BTC).trailingStop);
    expect(entry.value).toBe(96);
    // the next candle's high 112 moves it to 107 (its low 104 did not reach 96)
    const moved = live.candle(held, candle(3, [108, 112, 104, 110]), (ctx) => ctx.position(BTC).trailingStop);
    expect(moved.intents).toEqual([]);
    expect(moved.value).toBe(107);
    // the low 106 reaches 107, nearer the price than the stop-loss at 90
    const hit = live.candle(held, candle(4, [110, 111, 106, 107]));
    expect(hit.intents).toEqual([exitIntent('o2', 'sell', 1, 4, 'trailingStop')]);
  });

  it('ctx.setTrailingStop starts from the candle close, or the entry price on another symbol candle; null removes it', () => {
    const live = liveRun({ symbols: [BTC, ETH] });
    const held = account([long(1, 100)]);
    const own = live.candle(held, candle(1, [100, 105, 99, 104]), (ctx) => [ctx.setTrailingStop(BTC, { fraction: 0.1 }), ctx.position(BTC).trailingStop]);
    // 104 x (1 - 0.1)
    expect(own.value).toEqual([true, expect.closeTo(93.6, 9)]);
    const other = live.candle(held, candle(1, flat(10), ETH), (ctx) => [ctx.setTrailingStop(BTC, { distance: 10 }), ctx.position(BTC).trailingStop]);
    expect(other.value).toEqual([true, 90]);
    const removed = live.candle(held, candle(2, flat(100)), (ctx) => [ctx.setTrailingStop(BTC, null), ctx.position(BTC).trailingStop]);
    expect(removed.value).toEqual([true, null]);
  });

  it('on a short follow the lowest low', () => {
    const live = liveRun();
    const held = account([short(1, 100)]);
    live.candle(held, candle(1, flat(100)), (ctx) => ctx.setTrailingStop(BTC, { distance: 4 }));
    const moved = live.candle(held, candle(2, [100, 101, 90, 92]), (ctx) => ctx.position(BTC).trailingStop);
    // 104 held (the high 101 is below it); after the candle, 90 + 4
    expect(moved.intents).toEqual([]);
    expect(moved.value).toBe(94);
    expect(live.candle(held, candle(3, [93, 95, 92, 94])).intents).toEqual([exitIntent('o1', 'buy', 1, 3, 'trailingStop')]);
  });
});

describe('logs', () => {
  it('come back with each call, and the limit applies per call', () => {
    const live = liveRun({ maxLogLines: 2 });
    const first = live.candle(account(), candle(1, flat(100)), (ctx) => {
      ctx.log('a');
      ctx.log('b', { x: 1 });
    });
    expect(first.logs).toEqual([
      [MIN, 'info', 'a'],
      [MIN, 'info', 'b {"x":1}'],
    ]);
    const second = live.candle(account(), candle(2, flat(100)), (ctx) => {
      ctx.log('c');
      ctx.log('d');
    });
    expect(second.logs).toEqual([
      [2 * MIN, 'info', 'c'],
      [2 * MIN, 'info', 'd'],
    ]);
    const tooMany = (ctx: any) => {
      for (let k = 0; k < 3; k++) {
        try {
          ctx.log(k);
        } catch {}
      }
    };
    expect(() => live.candle(account(), candle(3, flat(100)), tooMany)).toThrow('Log limit reached');
    expect(() => live.order(account(), filled('o1', 'buy', 100, 4 * MIN), tooMany)).toThrow('Log limit reached');
  });
});

describe('ctx', () => {
  it('reads the deployment: mode, frozen params and symbols, the clock, random, the account from the host', () => {
    const live = liveRun({ params: { fast: 3, nested: { list: [1] } }, random: () => 0.125 });
    const r = live.candle(account([long(2, 100, 0)], [], { cash: 800, equity: 1010 }), candle(7, flat(105)), (ctx) => {
      const p = ctx.position(BTC);
      return {
        mode: ctx.mode,
        params: ctx.params,
        frozen: Object.isFrozen(ctx.params.nested.list) && Object.isFrozen(ctx.symbols) && Object.isFrozen(p),
        symbols: ctx.symbols,
        now: ctx.now(),
        random: ctx.random(),
        cash: ctx.cash(),
        equity: ctx.equity(),
        same: p === ctx.position(BTC),
        quantity: p.quantity,
      };
    });
    expect(r.value).toEqual({
      mode: 'live',
      params: { fast: 3, nested: { list: [1] } },
      frozen: true,
      symbols: [BTC],
      now: 7 * MIN,
      random: 0.125,
      cash: 800,
      equity: 1010,
      same: true,
      quantity: 2,
    });
    expect(live.run.now()).toBe(7 * MIN);
  });

  it('indicators are asked of the host by kind, symbol index, timeframe, arguments (defaults as in a backtest) and output', () => {
    const asked: number[][] = [];
    const hostInd: HostInd = (kind, s, tf, a0, a1, a2, output) => {
      asked.push([kind, s, tf, a0, a1, a2, output]);
      return kind * 100 + output;
    };
    const r = liveRun({ symbols: [BTC, ETH], hostInd }).candle(account(), candle(1, flat(100)), (ctx) => [
      ctx.indicators.sma(BTC, 10),
      ctx.indicators.ema(ETH, 5),
      ctx.indicators.rsi(BTC),
      ctx.indicators.atr(BTC, 7),
      ctx.indicators.bollinger(BTC),
    ]);
    expect(r.value).toEqual([0, 100, 200, 300, { upper: 400, middle: 401, lower: 402 }]);
    expect(asked).toEqual([
      [0, 0, 0, 10, NaN, NaN, 0],
      [1, 1, 0, 5, NaN, NaN, 0],
      [2, 0, 0, 14, NaN, NaN, 0],
      [3, 0, 0, 7, NaN, NaN, 0],
      [4, 0, 0, 20, 2, NaN, 0],
      [4, 0, 0, 20, 2, NaN, 1],
      [4, 0, 0, 20, 2, NaN, 2],
    ]);
  });

  it('a strategy without onCandle, or with an onOrder that is not a function, is refused', () => {
    const env = { logs: createLogBuffer({ maxLines: 1, maxBytes: 1, scope: '', now: () => 0 }), random: () => 0, startTime: 0 };
    const host = { ind: () => 0, history: () => new ArrayBuffer(0) };
    const cfg = { symbols: [BTC], timeframes: [{ name: '1m', ms: MIN }], params: {} };
    expect(thrown(() => createLiveRun(cfg, {}, host, env))).toEqual({
      name: 'TypeError',
      message: 'The strategy must export a function onCandle(ctx, candle)',
    });
    expect(thrown(() => createLiveRun(cfg, { onCandle() {}, onOrder: 'x' }, host, env))).toEqual({
      name: 'TypeError',
      message: 'onOrder, when exported, must be a function',
    });
  });
});
