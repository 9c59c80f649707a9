import { describe, expect, it } from 'vitest';
import { formatCpuSeconds, formatMinorAmount, usageFraction, usageLevel } from './billing-format.js';

describe('billing figures', () => {
  it('fills a meter by the share used, never past full', () => {
    expect(usageFraction(0, 50)).toBe(0);
    expect(usageFraction(25, 50)).toBe(0.5);
    expect(usageFraction(80, 50)).toBe(1);
    expect(usageFraction(0, 0)).toBe(0);
    expect(usageFraction(3, 0)).toBe(1);
  });

  it('warns from 80% and says when the limit is reached', () => {
    expect(usageLevel(39, 50)).toBe('ok');
    expect(usageLevel(40, 50)).toBe('high');
    expect(usageLevel(50, 50)).toBe('over');
    expect(usageLevel(60, 50)).toBe('over');
    expect(usageLevel(0, 0)).toBe('ok');
  });

  it('writes CPU time in the unit that reads best', () => {
    expect(formatCpuSeconds(12.4)).toBe('12 s');
    expect(formatCpuSeconds(1_800)).toBe('30 min');
    expect(formatCpuSeconds(72_000)).toBe('20 h');
    expect(formatCpuSeconds(5_400)).toBe('1.5 h');
    expect(formatCpuSeconds(720_000)).toBe('200 h');
  });

  it('writes invoice amounts from their smallest unit, by currency', () => {
    expect(formatMinorAmount(2_900, 'usd')).toBe('$29.00');
    expect(formatMinorAmount(9_900, 'eur')).toBe('€99.00');
    expect(formatMinorAmount(500, 'jpy')).toBe('¥500');
    expect(formatMinorAmount(123, 'zzzz')).toBe('123 ZZZZ (minor units)');
  });
});
