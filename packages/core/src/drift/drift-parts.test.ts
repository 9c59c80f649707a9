import { describe, expect, it } from 'vitest';
import { dtwDistance } from './dtw-distance.js';
import { matchIntents } from './intent-matching.js';
import { slippageHistogram, slippageStats } from './slippage-stats.js';
import { DAY, scenario, T0 } from './test-fixtures.js';

describe('dtwDistance', () => {
  it('is 0 for equal series and aligns a shifted one', () => {
    expect(dtwDistance([1, 2, 3], [1, 2, 3])).toBe(0);
    // [0, 1, 2] against [0, 0, 1, 2]: the two zeros align with the first 0, cost 0.
    expect(dtwDistance([0, 1, 2], [0, 0, 1, 2])).toBe(0);
    // [0, 1] against [0, 3]: best path (0,0) then (1,3): |1 − 3| = 2.
    expect(dtwDistance([0, 1], [0, 3])).toBe(2);
  });
});

describe('slippage statistics', () => {
  it('interpolates percentiles linearly between order statistics', () => {
    // Four matched buys at 0, 1, 2, 10 bps: p50 at rank 1.5 = 1.5; p95 at rank 2.85 = 2 + 0.85 × 8 = 8.8; mean 13 / 4 = 3.25.
    const input = scenario();
    const pairs = [0, 1, 2, 10].map((bps, i) => ({
      kind: 'matched' as const,
      live: { orderId: `o${i}`, guestId: null, symbol: 'X', side: 'buy' as const, quantity: 1, price: 100 * (1 + bps / 1e4), fee: 0, time: 0 },
      replay: { order: { ...input.replay.orders[0]!, side: 'buy' as const }, time: 0, price: 100, quantity: 1, fee: 0 },
    }));
    const stats = slippageStats(pairs, 0.0005);
    expect(stats.meanBps).toBeCloseTo(3.25, 9);
    expect(stats.p50Bps).toBeCloseTo(1.5, 9);
    expect(stats.p95Bps).toBeCloseTo(8.8, 9);
    expect(stats.modelBps).toBeCloseTo(5, 12);
  });

  it('bins every value, the narrowest width within 20 bins', () => {
    const bins = slippageHistogram([-3, 0, 0.4, 12]);
    expect(bins.reduce((s, b) => s + b.count, 0)).toBe(4);
    expect(bins[0]).toEqual({ fromBps: -3, toBps: -2, count: 1 });
    expect(bins).toHaveLength(16);
    expect(slippageHistogram([])).toEqual([]);
  });
});

describe('matchIntents', () => {
  it('lets an onOrder intent match the replay one candle later, and a candle intent only at its own candle', () => {
    const input = scenario();
    const [intent] = input.live.intents;
    const order = { ...input.replay.orders[0]!, candleTime: T0 + 2 * DAY };
    expect(matchIntents([{ ...intent!, source: 'order' }], [order], DAY).replayOf.size).toBe(1);
    expect(matchIntents([intent!], [order], DAY).replayOf.size).toBe(0);
  });

  it('needs the same quantity within 1e-9 relative, and ignores the engine’s own exits', () => {
    const input = scenario();
    const [intent] = input.live.intents;
    const order = input.replay.orders[0]!;
    expect(matchIntents([{ ...intent!, quantity: 10 * (1 + 5e-10) }], [order], DAY).replayOf.size).toBe(1);
    expect(matchIntents([{ ...intent!, quantity: 10.0001 }], [order], DAY).replayOf.size).toBe(0);
    expect(matchIntents([], [{ ...order, type: 'stop_loss' }], DAY).replayIntents).toEqual([]);
  });
});
