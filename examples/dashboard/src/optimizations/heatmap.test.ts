import { describe, expect, it } from 'vitest';
import { colourAt, contrast, EMPTY_SWATCH, heatmap, luminance, sensitivityBars } from './heatmap.js';

const rgbOf = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));

describe('sensitivity heatmap', () => {
  it('lays the cells out by the second parameter’s values (rows) and the first’s (columns), marking the best', () => {
    const map = heatmap({
      params: ['fast', 'slow'],
      x: ['5', '10', '15'],
      y: ['20', '30'],
      best: [
        [0.5, 1.5],
        [null, -0.2],
        [2.5, 0.1],
      ],
    });
    expect(map.rows.length).toBe(2);
    expect(map.rows.every((row) => row.length === 3)).toBe(true);
    expect(map.rows[0]!.map((c) => c.value)).toEqual([0.5, null, 2.5]);
    expect(map.rows[1]!.map((c) => `${c.x}/${c.y}`)).toEqual(['5/30', '10/30', '15/30']);
    expect(
      map.rows
        .flat()
        .filter((c) => c.best)
        .map((c) => c.value),
    ).toEqual([2.5]);
    expect([map.min, map.max]).toEqual([-0.2, 2.5]);
    expect(map.rows[0]![1]).toMatchObject(EMPTY_SWATCH);
  });

  it('colours from the lowest objective (dark) to the highest (light), text always readable (4.5:1)', () => {
    const low = rgbOf(colourAt(0, 0, 10).fill);
    const high = rgbOf(colourAt(10, 0, 10).fill);
    expect(luminance(low)).toBeLessThan(luminance(high));
    for (let v = 0; v <= 100; v++) {
      const swatch = colourAt(v, 0, 100);
      const text = swatch.text === '#000000' ? 0 : 1;
      expect(contrast(luminance(rgbOf(swatch.fill)), text), `${v}`).toBeGreaterThanOrEqual(4.5);
    }
    expect(colourAt(3, 3, 3).fill).toBe(colourAt(50, 0, 100).fill); // one value alone: the middle
    expect(contrast(luminance(rgbOf(EMPTY_SWATCH.fill)), luminance(rgbOf(EMPTY_SWATCH.text)))).toBeGreaterThanOrEqual(4.5);
  });

  it('measures a parameter’s bars from zero', () => {
    const bars = sensitivityBars({
      param: 'fast',
      values: [
        { value: '5', best: 2, mean: 1, trials: 3 },
        { value: '10', best: -1, mean: -2, trials: 3 },
        { value: '15', best: null, mean: null, trials: 0 },
      ],
    });
    expect(bars.map((b) => b.length)).toEqual([2 / 3, 1 / 3, 0]);
  });
});
