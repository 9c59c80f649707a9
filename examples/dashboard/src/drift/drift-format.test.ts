import { describe, expect, it } from 'vitest';
import { amountDigits, formatAmount, formatShare } from './drift-format.js';

describe('drift figures as text', () => {
  it('writes a share as people say it', () => {
    expect(formatShare(1)).toBe('100 %');
    expect(formatShare(4 / 7)).toBe('57.1 %');
    expect(formatShare(null)).toBe('–');
  });

  it('writes amounts with the decimals they need, signed as changes', () => {
    expect(amountDigits(1234.5)).toBe(2);
    expect(amountDigits(0.0042)).toBe(5);
    expect(amountDigits(0)).toBe(2);
    expect(formatAmount(1234.5)).toBe('1,234.50');
    expect(formatAmount(-0.0042, { digits: 5 })).toBe('-0.00420');
    expect(formatAmount(0.5, { signed: true })).toBe('+0.50');
    expect(formatAmount(-0.5, { signed: true })).toBe('\u22120.50');
    expect(formatAmount(-0.001, { signed: true })).toBe('0.00');
  });
});
