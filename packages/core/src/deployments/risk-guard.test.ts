import { describe, expect, it } from 'vitest';
import { createRiskGuard, type RiskAccount } from './risk-guard.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const HOUR = 3_600_000;
const flat = (equity: number): RiskAccount => ({ equity, positions: [] });
const close = { onBreach: 'close' as const };

describe('risk guard', () => {
  it('maxDrawdown: halts once equity is the limit below its peak since start, with the figures', () => {
    const guard = createRiskGuard({ ...close, maxDrawdown: 0.2 }, null, 'USDT');
    expect(guard.observe(flat(10_000), T0)).toBeNull();
    expect(guard.observe(flat(10_320), T0 + 1000)).toBeNull();
    expect(guard.observe(flat(8_300), T0 + 2000)).toBeNull(); // 19.6 %
    const breach = guard.observe(flat(8_120), T0 + 3000);
    expect(breach).toEqual({
      reason: 'maxDrawdown',
      message: 'Equity 8,120.00 USDT is 21.3 % below its peak 10,320.00 USDT; maxDrawdown is 20 %',
      value: (10_320 - 8_120) / 10_320,
      limit: 0.2,
    });
    expect(guard.state()).toMatchObject({ peakEquity: 10_320, peakAt: new Date(T0 + 1000).toISOString() });
  });

  it('maxDrawdown: the peak kept across a restart counts, a fresh start does not', () => {
    const first = createRiskGuard({ ...close, maxDrawdown: 0.1 }, null, 'USDT');
    first.observe(flat(12_000), T0);
    first.observe(flat(11_000), T0 + 1000);
    expect(first.takeChanged()).toBe(true);
    expect(first.takeChanged()).toBe(false);
    first.observe(flat(11_500), T0 + 2000); // below the peak, same day: nothing to write
    expect(first.takeChanged()).toBe(false);
    const kept = first.state();
    expect(kept).toEqual({ peakEquity: 12_000, peakAt: new Date(T0).toISOString(), day: '2026-03-01', dayStartEquity: 12_000 });

    // The service restarts: the deployment resumes with what was kept, and 10,700 is 10.8 % below 12,000.
    const resumed = createRiskGuard({ ...close, maxDrawdown: 0.1 }, JSON.parse(JSON.stringify(kept)), 'USDT');
    expect(resumed.observe(flat(10_700), T0 + 3000)).toMatchObject({ reason: 'maxDrawdown', limit: 0.1 });
    // Restarted by its owner (no state): 10,700 is its new peak.
    const fresh = createRiskGuard({ ...close, maxDrawdown: 0.1 }, null, 'USDT');
    expect(fresh.observe(flat(10_700), T0 + 3000)).toBeNull();
    expect(fresh.state()?.peakEquity).toBe(10_700);
  });

  it("dailyLossLimit: measured from the UTC day's first reading, which rolls over at midnight", () => {
    const guard = createRiskGuard({ ...close, dailyLossLimit: 0.05 }, null, 'USDT');
    expect(guard.observe(flat(10_000), T0)).toBeNull();
    expect(guard.observe(flat(9_600), T0 + HOUR)).toBeNull(); // 4 %
    // Midnight: the new day starts at 9,600, so 9,200 is 4.2 % down that day (8 % from the first day's start).
    const nextDay = Date.parse('2026-03-02T00:00:05Z');
    expect(guard.observe(flat(9_600), nextDay)).toBeNull();
    expect(guard.takeChanged()).toBe(true);
    expect(guard.state()).toMatchObject({ day: '2026-03-02', dayStartEquity: 9_600 });
    expect(guard.observe(flat(9_200), nextDay + HOUR)).toBeNull();
    const breach = guard.observe(flat(9_100), nextDay + 2 * HOUR);
    expect(breach).toEqual({
      reason: 'dailyLossLimit',
      message: "Equity 9,100.00 USDT is 5.2 % below the day's starting equity 9,600.00 USDT (2026-03-02 UTC); dailyLossLimit is 5 %",
      value: 500 / 9_600,
      limit: 0.05,
    });
  });

  it('maxPositionNotional: refuses an entry past the cap (counting open entries), lets exits and reductions through', () => {
    const guard = createRiskGuard({ ...close, maxPositionNotional: 1_000 }, null, 'USDT');
    const entry = { symbol: 'BTC/USDT:USDT', side: 'buy' as const, price: 50_000, position: 0, pending: 0 };
    expect(guard.refuseEntry({ ...entry, quantity: 0.02 })).toBeNull(); // exactly 1,000
    expect(guard.refuseEntry({ ...entry, quantity: 0.021 })).toBe(
      'the BTC/USDT:USDT position would be long 0.021, 1,050.00 USDT at 50,000.00, above maxPositionNotional 1,000.00 USDT',
    );
    // 0.01 held and 0.008 resting: 0.004 more is 0.022.
    expect(guard.refuseEntry({ ...entry, quantity: 0.004, position: 0.01, pending: 0.008 })).toMatch(/would be long 0.022, 1,100.00 USDT/);
    // A resting sell does not make room for a buy.
    expect(guard.refuseEntry({ ...entry, quantity: 0.015, position: 0.01, pending: -0.01 })).toMatch(/would be long 0.025/);
    // Selling into a long, even past flat to a short within the cap, passes; a reversal past the cap does not.
    expect(guard.refuseEntry({ ...entry, side: 'sell', quantity: 0.03, position: 0.015 })).toBeNull();
    expect(guard.refuseEntry({ ...entry, side: 'sell', quantity: 0.05, position: 0.015 })).toMatch(/would be short 0.035/);
    // A position already past the cap (the price rose) may still be reduced.
    expect(guard.refuseEntry({ ...entry, side: 'sell', quantity: 0.01, position: 0.03 })).toBeNull();
    // No price known: not checked.
    expect(guard.refuseEntry({ ...entry, quantity: 1, price: null })).toBeNull();
  });

  it('maxPositionNotional: a position already past the cap halts', () => {
    const guard = createRiskGuard({ ...close, maxPositionNotional: 1_000 }, null, 'USDT');
    const positions = [
      { symbol: 'ETH/USDT:USDT', side: 'short' as const, quantity: 0.2, price: 3_000 },
      { symbol: 'BTC/USDT:USDT', side: 'long' as const, quantity: 0.02, price: 52_000 },
    ];
    expect(guard.observe({ equity: 10_000, positions: positions.slice(0, 1) }, T0)).toBeNull();
    expect(guard.observe({ equity: 10_000, positions }, T0)).toEqual({
      reason: 'maxPositionNotional',
      message: 'The BTC/USDT:USDT long position is 1,040.00 USDT (0.02 at 52,000.00); maxPositionNotional is 1,000.00 USDT',
      value: 1_040,
      limit: 1_000,
    });
  });

  it('maxOrdersPerMinute: counts intents in a rolling minute', () => {
    const guard = createRiskGuard({ ...close, maxOrdersPerMinute: 3 }, null, 'USDT');
    expect(guard.countOrder(T0)).toBeNull();
    expect(guard.countOrder(T0 + 20_000)).toBeNull();
    expect(guard.countOrder(T0 + 40_000)).toBeNull();
    // The first one is a minute old: it no longer counts.
    expect(guard.countOrder(T0 + 60_000)).toBeNull();
    expect(guard.countOrder(T0 + 61_000)).toEqual({
      reason: 'maxOrdersPerMinute',
      message: 'The strategy asked for 4 orders within a minute; maxOrdersPerMinute is 3',
      value: 4,
      limit: 3,
    });
  });

  it('with no limits it never breaches and still keeps the peak', () => {
    const guard = createRiskGuard(close, null, 'USDT');
    expect(guard.observe(flat(10_000), T0)).toBeNull();
    expect(guard.observe({ equity: 1, positions: [{ symbol: 'X/USDT:USDT', side: 'long', quantity: 1e9, price: 1e9 }] }, T0)).toBeNull();
    for (let i = 0; i < 1000; i++) expect(guard.countOrder(T0)).toBeNull();
    expect(guard.refuseEntry({ symbol: 'X/USDT:USDT', side: 'buy', quantity: 1e9, price: 1e9, position: 0, pending: 0 })).toBeNull();
    expect(guard.state()?.peakEquity).toBe(10_000);
  });
});
