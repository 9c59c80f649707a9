import { describe, expect, it } from 'vitest';
import { drawdownSeries, equitySeries } from './chart-data.js';
import { tradeMarkers } from './trade-markers.js';

const iso = (s: number) => new Date(s * 1000).toISOString();

describe('chart data', () => {
  it('keeps equity points in strictly increasing seconds', () => {
    const series = equitySeries([
      { time: iso(10), equity: 100 },
      { time: iso(10), equity: 101 },
      { time: iso(5), equity: 1 },
      { time: iso(20), equity: 90 },
    ]);
    expect(series).toEqual([
      { time: 10, value: 101 },
      { time: 20, value: 90 },
    ]);
  });

  it('computes the drawdown from the running peak, in percent', () => {
    const dd = drawdownSeries([
      { time: 1, value: 100 },
      { time: 2, value: 120 },
      { time: 3, value: 90 },
      { time: 4, value: 130 },
    ]);
    expect(dd.map((p) => Math.round(p.value * 100) / 100)).toEqual([0, 0, -25, 0]);
  });

  it('marks each trade’s entry and exit on the bar holding its time, and counts those outside', () => {
    const bars = [0, 3600, 7200, 10800];
    const { markers, marked, outside } = tradeMarkers(
      [
        { side: 'long', entryTime: iso(3600), exitTime: iso(7300), entryPrice: 1, exitPrice: 2, pnl: 1 },
        { side: 'short', entryTime: iso(0), exitTime: iso(10800), entryPrice: 2, exitPrice: 3, pnl: -1 },
        { side: 'long', entryTime: iso(10800), exitTime: iso(20000), entryPrice: 1, exitPrice: 1, pnl: 0 },
      ],
      bars,
      3600,
    );
    expect({ marked, outside }).toEqual({ marked: 2, outside: 1 });
    expect(markers.map((m) => [m.id, m.time, m.bar, m.shape])).toEqual([
      ['1-entry', 0, 0, 'arrowDown'],
      ['0-entry', 3600, 1, 'arrowUp'],
      ['0-exit', 7200, 2, 'circle'],
      ['1-exit', 10800, 3, 'circle'],
    ]);
  });
});
