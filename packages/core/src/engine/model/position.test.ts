import { describe, expect, it } from 'vitest';
import { limitFillPrice, marketFillPrice, stopFillPrice } from './fill-prices.js';
import { type Account, applyFill, liquidate, liquidationPrice, marginRefusal, newClosedPart, newPosition, payFunding } from './position.js';
import { ratchetBest, trailingStopLevel } from './trailing-stop.js';

/*
 * The shared account model, by hand: every expected number below is worked out in the comment
 * beside it, not produced by the code under test.
 */
const account = (leverage = 1, cash = 10_000): Account => ({ cash, marginTotal: 0, leverage });

describe('fills', () => {
  it('opens, adds at the weighted entry, and locks notional / leverage as margin', () => {
    const a = account(5);
    const p = newPosition();
    const closed = newClosedPart();
    // buy 2 @ 100, fee 0.1%: fee 0.2, margin 2 x 100 / 5 = 40
    expect(applyFill(a, p, 1, 2, 100, 0.001, 1, closed)).toBeCloseTo(0.2, 12);
    // buy 2 @ 110: entry (2 x 100 + 2 x 110) / 4 = 105, margin 40 + 44 = 84, fees 0.2 + 0.22
    applyFill(a, p, 1, 2, 110, 0.001, 2, closed);
    expect(closed.quantity).toBe(0);
    expect(p).toMatchObject({ qty: 4, entry: 105, entryTime: 1 });
    expect(p.margin).toBeCloseTo(84, 12);
    expect(a.marginTotal).toBeCloseTo(84, 12);
    expect(a.cash).toBeCloseTo(10_000 - 0.42, 9);
  });

  it('a sell larger than the long closes it (a trade) and opens a short with the rest', () => {
    const a = account(2);
    const p = newPosition();
    const closed = newClosedPart();
    applyFill(a, p, 1, 1, 100, 0, 1, closed);
    // sell 3 @ 120: closes 1 long (+20), opens 2 short @ 120 with margin 2 x 120 / 2 = 120
    applyFill(a, p, -1, 3, 120, 0, 5, closed);
    expect(closed).toMatchObject({ quantity: 1, dir: 1, entryTime: 1, entryPrice: 100, pnl: 20, fees: 0, funding: 0 });
    expect(p).toMatchObject({ qty: -2, entry: 120, entryTime: 5, margin: 120 });
    expect(a.marginTotal).toBe(120);
    expect(a.cash).toBe(10_020);
  });

  it('refuses an opening the free margin cannot pay for', () => {
    const a = account(2, 100);
    const p = newPosition();
    // needs 3 x 100 / 2 = 150 > 100
    expect(marginRefusal(a, p, 1, 3, 100, 100)).toBe('insufficient margin: needs 150, available 100');
    expect(marginRefusal(a, p, 1, 2, 100, 100)).toBeNull();
  });
});

describe('fill prices over a candle (open 100, high 110, low 90)', () => {
  it('market at the open moved against the trader; limits through the price; stops on touch, gaps at the open', () => {
    expect(marketFillPrice(1, 100, 0.01)).toBe(101);
    expect(marketFillPrice(-1, 100, 0.01)).toBe(99);
    expect(limitFillPrice(1, 100, 110, 90, 95)).toBe(95);
    expect(limitFillPrice(1, 100, 110, 90, 90)).toBeNaN(); // touching is not trading through
    expect(limitFillPrice(1, 100, 110, 90, 105)).toBe(100); // opens below the limit: the open
    expect(stopFillPrice(1, 100, 110, 90, 110, 0)).toBe(110); // touch fills a stop
    expect(stopFillPrice(-1, 100, 110, 90, 120, 0)).toBe(100); // opened below a sell stop: the open
    expect(stopFillPrice(-1, 100, 110, 90, 85, 0)).toBeNaN();
  });
});

describe('funding', () => {
  it('across a reversal: the long pays, its trade carries the payment; the short then receives', () => {
    const a = account(1);
    const p = newPosition();
    const closed = newClosedPart();
    applyFill(a, p, 1, 1, 100, 0, 1, closed);
    // funding at price 110, rate 0.001: the long pays 1 x 110 x 0.001 = 0.11
    expect(payFunding(a, p, 110, 0.001)).toBeCloseTo(0.11, 12);
    // sell 2 @ 120: the long's trade is 20 - 0.11 = 19.89, and a short of 1 opens with no funding yet
    applyFill(a, p, -1, 2, 120, 0, 3, closed);
    expect(closed.funding).toBeCloseTo(0.11, 12);
    expect(closed.pnl).toBeCloseTo(19.89, 12);
    expect(p.funding).toBe(0);
    // funding at 115, rate 0.001: the short receives 1 x 115 x 0.001 = 0.115 (pays -0.115)
    expect(payFunding(a, p, 115, 0.001)).toBeCloseTo(-0.115, 12);
    // buy 1 @ 100 closes the short: 20 + 0.115 = 20.115
    applyFill(a, p, 1, 1, 100, 0, 4, closed);
    expect(closed.pnl).toBeCloseTo(20.115, 12);
    // cash: 10,000 - 0.11 + 20 + 0.115 + 20
    expect(a.cash).toBeCloseTo(10_040.005, 9);
  });

  it('a partial close takes its share of the funding paid so far', () => {
    const a = account(1);
    const p = newPosition();
    const closed = newClosedPart();
    applyFill(a, p, 1, 4, 100, 0, 1, closed);
    payFunding(a, p, 100, 0.01); // 4 x 100 x 0.01 = 4
    applyFill(a, p, -1, 1, 100, 0, 2, closed); // a quarter: funding 1, pnl -1
    expect(closed.funding).toBe(1);
    expect(closed.pnl).toBe(-1);
    expect(p.funding).toBe(3);
  });

  it('on a liquidated position: the trade loses the whole margin plus the funding it paid', () => {
    const a = account(10);
    const p = newPosition();
    const closed = newClosedPart();
    applyFill(a, p, 1, 1, 100, 0.001, 1, closed); // fee 0.1, margin 10
    payFunding(a, p, 100, 0.002); // pays 0.2
    // liquidation price: 100 x (1 - 1/10 + 0.005) = 90.5
    const px = liquidationPrice(p, 10, 0.005);
    expect(px).toBeCloseTo(90.5, 12);
    // loss 9.5, liquidation fee = margin 10 - 9.5 = 0.5; pnl = -9.5 - 0.1 - 0.5 - 0.2 = -10.3
    expect(liquidate(a, p, px, closed)).toBeCloseTo(0.5, 9);
    expect(closed).toMatchObject({ quantity: 1, dir: 1 });
    expect(closed.pnl).toBeCloseTo(-10.3, 9);
    expect(closed.fees).toBeCloseTo(0.6, 9);
    expect(closed.funding).toBeCloseTo(0.2, 12);
    expect(p.qty).toBe(0);
    expect(a.marginTotal).toBe(0);
    expect(a.cash).toBeCloseTo(10_000 - 10.3, 9);
  });
});

describe('trailing stops', () => {
  it('follow the best price at a distance or a fraction, and never move back', () => {
    expect(trailingStopLevel(1, 110, 5, Number.NaN)).toBe(105);
    expect(trailingStopLevel(-1, 90, 5, Number.NaN)).toBe(95);
    expect(trailingStopLevel(1, 200, Number.NaN, 0.1)).toBe(180);
    expect(trailingStopLevel(-1, 200, Number.NaN, 0.1)).toBeCloseTo(220, 12);
    expect(ratchetBest(1, 110, 108, 100)).toBe(110);
    expect(ratchetBest(1, 110, 115, 100)).toBe(115);
    expect(ratchetBest(-1, 90, 95, 85)).toBe(85);
    expect(ratchetBest(-1, 90, 95, 91)).toBe(90);
  });
});
