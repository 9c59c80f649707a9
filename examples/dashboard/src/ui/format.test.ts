import { describe, expect, it } from 'vitest';
import { formatDuration, formatMoney, formatPercent, formatTime } from './format.js';

describe('format', () => {
  it('writes what a person reads, and a dash for what cannot be computed', () => {
    expect(formatPercent(0.1234)).toBe('12.34%');
    expect(formatPercent(null)).toBe('–');
    expect(formatMoney(12345.678)).toBe('12,345.68');
    expect(formatTime('2025-01-02T03:04:05.000Z')).toBe('2025-01-02 03:04');
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe('3d 4h');
    expect(formatDuration(NaN)).toBe('–');
  });
});
