import { describe, expect, it } from 'vitest';
import { badgeFor } from './evidence-badge.js';
import { DEFAULT_VERIFICATION_SETTINGS, resolveVerificationSettings } from './verification-settings.js';

describe('verification settings', () => {
  it("default to the backtests' fees and capital, slippage that is not zero, funding on, 2 years", () => {
    const s = resolveVerificationSettings();
    expect(s).toMatchObject({ fees: { maker: 0.0002, taker: 0.0005 }, slippage: 0.0005, funding: true, initialCapital: 10_000, backtestDays: 730 });
    expect(s.tenant).toBe('platform:verification');
    expect(resolveVerificationSettings({ badge: { emergingDays: 30 } }).badge).toEqual({ ...DEFAULT_VERIFICATION_SETTINGS.badge, emergingDays: 30 });
  });

  it('refuse zero costs and thresholds out of order', () => {
    for (const bad of [
      { slippage: 0 },
      { fees: { taker: 0 } },
      { fees: { maker: 0 } },
      { badge: { establishedDays: 10 } },
      { initialCapital: -1 },
      { intervalMs: 0 },
    ]) {
      expect(() => resolveVerificationSettings(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    }
  });
});

describe('the evidence badge', () => {
  const t = DEFAULT_VERIFICATION_SETTINGS.badge;
  it('is insufficient below 90 forward days or 30 trades, established from 180 days and 100 trades, else emerging', () => {
    expect(badgeFor(0, 0, t)).toBe('insufficient');
    expect(badgeFor(89.99, 500, t)).toBe('insufficient');
    expect(badgeFor(400, 29, t)).toBe('insufficient');
    expect(badgeFor(90, 30, t)).toBe('emerging');
    expect(badgeFor(179.9, 1_000, t)).toBe('emerging');
    expect(badgeFor(1_000, 99, t)).toBe('emerging');
    expect(badgeFor(180, 100, t)).toBe('established');
  });

  it("follows the operator's thresholds", () => {
    const s = resolveVerificationSettings({ badge: { emergingDays: 7, emergingTrades: 5, establishedDays: 30, establishedTrades: 20 } });
    expect(badgeFor(7, 5, s.badge)).toBe('emerging');
    expect(badgeFor(30, 20, s.badge)).toBe('established');
    expect(badgeFor(6, 50, s.badge)).toBe('insufficient');
  });
});
