import { describe, expect, it } from 'vitest';
import { checkMaxBacktestTrades, tradesToStore } from './stored-trades.js';

const t = (entry: number, exit: number, tag: string) => ({
  entryTime: new Date(Date.UTC(2025, 0, 1) + entry * 60_000).toISOString(),
  exitTime: new Date(Date.UTC(2025, 0, 1) + exit * 60_000).toISOString(),
  tag,
});

describe('tradesToStore', () => {
  it('orders by entry, then exit, keeping the engine order for equal times, and counts every trade', () => {
    // the engine reports trades as they close: here ETH's long trade closes after BTC's short ones
    const engine = [t(5, 6, 'b'), t(0, 9, 'eth'), t(5, 6, 'b2'), t(5, 5, 'a'), t(7, 8, 'c')];
    const before = structuredClone(engine);
    expect(tradesToStore(engine, 10)).toEqual({ trades: [t(0, 9, 'eth'), t(5, 5, 'a'), t(5, 6, 'b'), t(5, 6, 'b2'), t(7, 8, 'c')], tradeCount: 5 });
    expect(engine).toEqual(before);
  });

  it('keeps the first `max` by entry and still counts every trade', () => {
    const engine = Array.from({ length: 50 }, (_, i) => t(49 - i, 50, `t${49 - i}`));
    const { trades, tradeCount } = tradesToStore(engine, 7);
    expect(tradeCount).toBe(50);
    expect(trades.map((x) => x.tag)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6']);
    expect(tradesToStore(engine, 0)).toEqual({ trades: [], tradeCount: 50 });
  });
});

describe('checkMaxBacktestTrades', () => {
  it('takes whole numbers from 0 and refuses the rest', () => {
    expect(checkMaxBacktestTrades(0)).toBe(0);
    expect(checkMaxBacktestTrades(25)).toBe(25);
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => checkMaxBacktestTrades(bad)).toThrow(RangeError);
  });
});
