import { describe, expect, it } from 'vitest';
import { betterOf, rebasedEquity } from './compare-data.js';

describe('comparing two backtests', () => {
  it('rebases an equity curve to start at 100, in proportion', () => {
    const points = [
      { time: '2025-01-01T00:00:00.000Z', equity: 5_000 },
      { time: '2025-01-01T01:00:00.000Z', equity: 5_500 },
      { time: '2025-01-01T02:00:00.000Z', equity: 4_000 },
    ];
    const values = rebasedEquity(points).map((p) => p.value);
    expect(values).toHaveLength(3);
    [100, 110, 80].forEach((expected, i) => expect(values[i]).toBeCloseTo(expected, 10));
    expect(rebasedEquity(points)[1]!.time).toBe(Date.parse('2025-01-01T01:00:00.000Z') / 1000);
  });

  it('gives two runs of different capital the same start', () => {
    const a = rebasedEquity([{ time: '2025-01-01T00:00:00Z', equity: 1_000 }]);
    const b = rebasedEquity([{ time: '2025-02-01T00:00:00Z', equity: 250_000 }]);
    expect(a[0]!.value).toBe(b[0]!.value);
  });

  it('draws nothing for an empty curve or one that starts at 0', () => {
    expect(rebasedEquity([])).toEqual([]);
    expect(rebasedEquity([{ time: '2025-01-01T00:00:00Z', equity: 0 }])).toEqual([]);
  });

  it('marks the better value by the metric’s direction, and none for ties, gaps and plain figures', () => {
    expect(betterOf(0.2, 0.1, 'higher')).toBe('a');
    expect(betterOf(0.2, 0.1, 'lower')).toBe('b');
    expect(betterOf(1, 1, 'higher')).toBeNull();
    expect(betterOf(null, 1, 'higher')).toBeNull();
    expect(betterOf(3, 5, 'none')).toBeNull();
    expect(betterOf(Number.POSITIVE_INFINITY, 5, 'higher')).toBeNull();
  });
});
