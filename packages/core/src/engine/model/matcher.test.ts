import { describe, expect, it } from 'vitest';
import { EXIT_REASONS, LIMIT, MARKET, R_LIQUIDATION, R_STOP_LOSS, R_TRAILING_STOP, STOP } from './codes.js';
import { NO_EXIT, newExitFill, positionExit } from './exit-decision.js';
import type { FeeModel, FillModel } from './fill-fee-models.js';
import { createCandleMatcher, type MatchableOrder } from './matcher.js';
import { type Account, applyFill, liquidate, liquidationPrice, newClosedPart, newPosition } from './position.js';
import { NOTHING_TO_REDUCE, reduceOnlyQuantity } from './reduce-only.js';
import { ratchetBest, trailingStopLevel } from './trailing-stop.js';

/*
 * The per-candle matcher on the shared account model, through a one-symbol book as small as the
 * backtest's and the paper exchange's: orders sized by quantity (reduce-only cut by the model's
 * rule), a stop-loss, take-profit and trailing stop on the position, liquidation at the model's
 * price. Every expected number is worked out in the comment beside it.
 */

interface TestOrder extends MatchableOrder {
  id: string;
  quantity: number;
  reduceOnly: boolean;
}

interface Exit {
  what: string;
  px: number;
  feeRate?: number;
  q: number;
}

function book(opts: { leverage?: number; mmr?: number; fill?: FillModel; fees?: FeeModel } = {}) {
  const fill = opts.fill ?? { slippage: 0 };
  const fees = opts.fees ?? { maker: 0.001, taker: 0.002 };
  const leverage = opts.leverage ?? 1;
  const mmr = opts.mmr ?? 0.005;
  const account: Account = { cash: 10_000, marginTotal: 0, leverage };
  const position = newPosition();
  const closed = newClosedPart();
  const pending: TestOrder[][] = [[]];
  const open = new Uint8Array(1);
  const exBelow = new Float64Array([Number.NEGATIVE_INFINITY]);
  const exAbove = new Float64Array([Number.POSITIVE_INFINITY]);
  const trailBest = new Float64Array([Number.NaN]);
  const exits = { stopLoss: Number.NaN, takeProfit: Number.NaN, trailDistance: Number.NaN };
  const log: Exit[] = [];
  const out = newExitFill();
  let seq = 0;

  /** Keeps the gates the matcher reads in step with the position: its exits are checked on every candle while it is open. */
  function sync() {
    open[0] = position.qty !== 0 ? 1 : 0;
    exBelow[0] = position.qty !== 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    if (position.qty === 0) {
      trailBest[0] = Number.NaN;
      exits.stopLoss = Number.NaN;
      exits.takeProfit = Number.NaN;
    }
  }
  function fillAt(what: string, side: number, q: number, px: number, feeRate: number, t: number) {
    applyFill(account, position, side, q, px, feeRate, t, closed);
    log.push({ what, px, feeRate, q });
    sync();
  }
  const match = createCandleMatcher<TestOrder>(
    {
      pending,
      positions: [position],
      open,
      exBelow,
      exAbove,
      trailBest,
      take: (list, j) => list.splice(j, 1)[0]!,
      execute(o, px, feeRate, t) {
        const q = o.reduceOnly ? reduceOnlyQuantity(position.qty, o.side, o.quantity) : o.quantity;
        if (q === 0) return void log.push({ what: `${o.id} cancelled: ${NOTHING_TO_REDUCE}`, px: Number.NaN, q: 0 });
        fillAt(o.id, o.side, q, px, feeRate, t);
      },
      checkExits(_s, t, o, h, l, allowTP) {
        const dir = position.qty > 0 ? 1 : -1;
        let stop = exits.stopLoss;
        let reason = R_STOP_LOSS;
        if (trailBest[0] === trailBest[0]) {
          const level = trailingStopLevel(dir, trailBest[0]!, exits.trailDistance, Number.NaN);
          if (stop !== stop || (dir > 0 ? level > stop : level < stop)) {
            stop = level;
            reason = R_TRAILING_STOP;
          }
        }
        const lq = liquidationPrice(position, leverage, mmr);
        const exit = positionExit(dir, o, h, l, stop, allowTP ? exits.takeProfit : Number.NaN, lq, fill, fees, out);
        if (exit === NO_EXIT) return;
        if (exit === R_LIQUIDATION) {
          liquidate(account, position, lq, closed);
          log.push({ what: 'liquidation', px: lq, q: closed.quantity });
          sync();
          return;
        }
        fillAt(EXIT_REASONS[exit === R_STOP_LOSS ? reason : exit]!, -dir, Math.abs(position.qty), out.px, out.feeRate, t);
      },
      ratchet(_s, _t, h, l) {
        if (position.qty !== 0) trailBest[0] = ratchetBest(position.qty > 0 ? 1 : -1, trailBest[0]!, h, l);
      },
    },
    fill,
    fees,
  );
  return {
    account,
    position,
    exits,
    trailBest,
    log,
    place(type: number, side: number, quantity: number, price = Number.NaN, time = 0, reduceOnly = false): string {
      const id = `o${++seq}`;
      pending[0]!.push({ id, type, side, price, time, closeAll: false, quantity, reduceOnly });
      return id;
    },
    pending: pending[0]!,
    /** The candle at time t: open, high, low. */
    candle(t: number, o: number, h: number, l: number) {
      match(0, t, o, h, l);
    },
  };
}

describe('the per-candle matcher', () => {
  it('fills a limit buy through a gap at the open, not at its limit, with the maker fee', () => {
    const b = book();
    b.place(LIMIT, 1, 1, 95);
    // The candle opens at 90, below the limit 95: the order fills at the open, 90, a better price.
    b.candle(1, 90, 92, 88);
    expect(b.log).toEqual([{ what: 'o1', px: 90, feeRate: 0.001, q: 1 }]);
    expect(b.position).toMatchObject({ qty: 1, entry: 90 });
  });

  it('fills a stop through a gap at the open moved by slippage, and waits with an order placed during the candle', () => {
    const b = book({ fill: { slippage: 0.01 } });
    b.place(STOP, 1, 1, 105);
    b.place(LIMIT, -1, 1, 200, 5); // placed at time 5: not for the candle at 5
    // Opens at 110 above the stop 105: fills at 110 x 1.01 = 111.1, taker fee.
    b.candle(5, 110, 112, 108);
    expect(b.log).toHaveLength(1);
    expect(b.log[0]!.px).toBeCloseTo(111.1, 9);
    expect(b.log[0]!.feeRate).toBe(0.002);
    expect(b.pending.map((o) => o.id)).toEqual(['o2']);
  });

  it('fills market orders at the open before the exits, and the exits before limit and stop orders', () => {
    const b = book();
    b.place(MARKET, 1, 1); // opens the long at 100
    b.place(LIMIT, 1, 1, 97); // placed before, but a limit: after the exits
    b.exits.stopLoss = 98;
    // Opens 100, low 96: the market buy at 100, then the stop-loss at 98 closes it, then the limit buys at 97.
    b.candle(1, 100, 101, 96);
    expect(b.log.map((e) => [e.what, e.px])).toEqual([
      ['o1', 100],
      ['stopLoss', 98],
      ['o2', 97],
    ]);
  });

  it('takes the stop-loss, not the take-profit, when a candle reaches both', () => {
    const b = book();
    b.place(MARKET, 1, 2);
    b.candle(1, 100, 100, 100);
    b.exits.stopLoss = 95;
    b.exits.takeProfit = 110;
    // High 112 passes the take-profit and low 94 the stop: the worst is assumed, the stop at 95, taker fee.
    b.candle(2, 100, 112, 94);
    expect(b.log.at(-1)).toEqual({ what: 'stopLoss', px: 95, feeRate: 0.002, q: 2 });
    expect(b.position.qty).toBe(0);
  });

  it('checks a position a limit opened for its stop on the rest of the candle, but not its take-profit', () => {
    const b = book();
    b.place(LIMIT, 1, 1, 100);
    b.exits.stopLoss = 96;
    b.exits.takeProfit = 103;
    // The limit fills at 100; from there the low 95 reaches the stop 96 on the same candle; the high 104 (take-profit 103) counts only from the next one.
    b.candle(1, 101, 104, 95);
    expect(b.log.map((e) => [e.what, e.px])).toEqual([
      ['o1', 100],
      ['stopLoss', 96],
    ]);
  });

  it('ratchets a trailing stop with each finished candle, and exits at the level set before the candle', () => {
    const b = book();
    b.place(MARKET, 1, 1);
    b.candle(1, 100, 100, 100);
    b.exits.trailDistance = 5;
    b.trailBest[0] = 100; // stop at 95
    // High 110, low 104: the level on this candle is still 95 (not reached); the candle moves the best to 110, the stop to 105.
    b.candle(2, 104, 110, 104);
    expect(b.log).toHaveLength(1);
    expect(b.trailBest[0]).toBe(110);
    // A lower high never moves it back.
    b.candle(3, 108, 109, 106);
    expect(b.trailBest[0]).toBe(110);
    // Opens at 101, below 105: exits at the open.
    b.candle(4, 101, 102, 100);
    expect(b.log.at(-1)).toEqual({ what: 'trailingStop', px: 101, feeRate: 0.002, q: 1 });
  });

  it('liquidates a position whose stop lies beyond its liquidation price before the stop can fill', () => {
    const b = book({ leverage: 10 });
    b.place(MARKET, 1, 1);
    b.candle(1, 100, 100, 100);
    // Liquidation at 100 x (1 - 1/10 + 0.005) = 90.5; the stop-loss at 90 is beyond it.
    b.exits.stopLoss = 90;
    b.candle(2, 95, 96, 89);
    expect(b.log.at(-1)!.what).toBe('liquidation');
    expect(b.log.at(-1)!.px).toBeCloseTo(90.5, 9);
    // The whole margin, 100 / 10 = 10, is lost, with the entry fee 100 x 0.002 = 0.2.
    expect(b.account.cash).toBeCloseTo(10_000 - 10.2, 9);
  });

  it('cuts a reduce-only order to the position and cancels one with nothing to reduce', () => {
    const b = book();
    b.place(MARKET, 1, 3);
    b.candle(1, 100, 100, 100);
    b.place(LIMIT, -1, 5, 105, 1, true); // sells at most the 3 held
    b.place(LIMIT, -1, 1, 106, 1, true); // nothing left to reduce by then
    b.candle(2, 104, 107, 103);
    expect(b.log.slice(1)).toEqual([
      { what: 'o2', px: 105, feeRate: 0.001, q: 3 },
      { what: `o3 cancelled: ${NOTHING_TO_REDUCE}`, px: Number.NaN, q: 0 },
    ]);
    expect(b.position.qty).toBe(0);
  });

  it('fills resting orders at their level when the open is unknown (the paper exchange between two reads)', () => {
    const b = book({ fill: { slippage: 0.01 } });
    b.place(LIMIT, 1, 1, 95);
    b.place(STOP, -1, 1, 99);
    // Read at 90: the limit buy at 95 and the sell stop at 99 x 0.99 = 98.01, never at 90.
    b.candle(1, Number.NaN, 90, 90);
    expect(b.log.map((e) => e.what)).toEqual(['o1', 'o2']);
    expect(b.log[0]!.px).toBe(95);
    expect(b.log[1]!.px).toBeCloseTo(98.01, 9);
  });
});

describe('reduce-only quantity', () => {
  it('is the order, at most the position on the other side, and 0 with nothing to reduce', () => {
    expect(reduceOnlyQuantity(-2, 1, 1)).toBe(1);
    expect(reduceOnlyQuantity(-2, 1, 5)).toBe(2);
    expect(reduceOnlyQuantity(2, 1, 1)).toBe(0);
    expect(reduceOnlyQuantity(0, -1, 1)).toBe(0);
  });
});
