import { describe, expect, it } from 'vitest';
import { type ParamSpec, parseStrategyParams } from '../sandbox/strategy-meta.js';
import { checkSearchSpace, gridPoint, gridPoints, gridSize, randomPoints, type SearchPoint, type SearchSpace } from './search-space.js';
import { validationError } from './test-fixtures.js';

const params: Record<string, ParamSpec> = {
  fast: { type: 'int', min: 1, max: 100, default: 10 },
  ratio: { type: 'float', min: 0, max: 1, default: 0.5 },
  trend: { type: 'bool', default: true },
  mode: { type: 'enum', values: ['ema', 'sma', 'wma'], default: 'ema' },
  label: { type: 'string', maxLength: 3, default: 'a' },
};

/** The `{ path, message }` problems `checkSearchSpace` reports, or [] when it accepts the space. */
function problemsOf(space: unknown): { path: string; message: string }[] {
  try {
    checkSearchSpace(space as SearchSpace, params);
    return [];
  } catch (error) {
    expect(error).toEqual(validationError(/^Invalid searchSpace/));
    return (error as { details: { path: string; message: string }[] }).details;
  }
}

/** Every combination, built the obvious way: nested loops, the last parameter innermost. */
function cartesian(values: Record<string, unknown[]>): SearchPoint[] {
  return Object.entries(values).reduce<SearchPoint[]>(
    (points, [name, list]) => points.flatMap((point) => list.map((value) => ({ ...point, [name]: value as never }))),
    [{}],
  );
}

describe('checkSearchSpace', () => {
  it('accepts lists and ranges typed by meta.params', () => {
    const space = {
      fast: { min: 5, max: 50, step: 5 },
      ratio: { min: 0, max: 1, step: 0.05 },
      trend: { values: [true, false] },
      mode: { values: ['ema', 'wma'] },
      label: { values: ['x', 'abc'] },
    };
    expect(problemsOf(space)).toEqual([]);
    expect(problemsOf({ ratio: { values: [0, 0.25, 1] } })).toEqual([]);
  });

  it('reports every problem at once, one path each', () => {
    const problems = problemsOf({
      slow: { values: [1] },
      fast: { min: 0, max: 10.5, step: 1.5 },
      ratio: { min: 0.8, max: 0.2, step: 0 },
      trend: { min: 0, max: 1, step: 1 },
      mode: { values: ['ema', 'hma', 'ema', 3] },
      label: { values: [] },
    });
    expect(problems).toEqual([
      { path: 'searchSpace.slow', message: 'Unknown parameter; the strategy declares fast, ratio, trend, mode, label' },
      { path: 'searchSpace.fast.min', message: 'must be at least 1, got 0' },
      { path: 'searchSpace.fast.max', message: 'must be an integer, got 10.5' },
      { path: 'searchSpace.fast.step', message: 'Must be an integer' },
      { path: 'searchSpace.ratio.step', message: 'Must be a number greater than 0' },
      { path: 'searchSpace.trend.min', message: 'A range needs a numeric parameter; list the values of this bool parameter instead' },
      { path: 'searchSpace.mode.values.1', message: 'must be one of ema, sma, wma, got "hma"' },
      { path: 'searchSpace.mode.values.2', message: 'Repeats an earlier value' },
      { path: 'searchSpace.mode.values.3', message: 'must be one of ema, sma, wma, got 3' },
      { path: 'searchSpace.label.values', message: 'Must be a non-empty list' },
    ]);
  });

  it('checks each value against its spec: types, bounds, integers, enum options, string length', () => {
    expect(problemsOf({ fast: { values: [10, 101, 2.5, '7'] }, trend: { values: [true, 1] }, label: { values: ['abcd'] } })).toEqual([
      { path: 'searchSpace.fast.values.1', message: 'must be at most 100, got 101' },
      { path: 'searchSpace.fast.values.2', message: 'must be an integer, got 2.5' },
      { path: 'searchSpace.fast.values.3', message: 'must be a finite number, got "7"' },
      { path: 'searchSpace.trend.values.1', message: 'must be true or false, got 1' },
      { path: 'searchSpace.label.values.0', message: 'must be at most 3 characters, got "abcd"' },
    ]);
    expect(problemsOf({ ratio: { values: [Number.NaN, 1.5, 0.5, 0.5] } })).toEqual([
      { path: 'searchSpace.ratio.values.0', message: 'must be a finite number, got NaN' },
      { path: 'searchSpace.ratio.values.1', message: 'must be at most 1, got 1.5' },
      { path: 'searchSpace.ratio.values.3', message: 'Repeats an earlier value' },
    ]);
  });

  it('refuses a range with min above max, a step too small to tell values apart, a bad shape, an empty space', () => {
    expect(problemsOf({ ratio: { min: 0.8, max: 0.2, step: 0.1 } })).toEqual([{ path: 'searchSpace.ratio.max', message: 'Must be at least min (0.8)' }]);
    expect(problemsOf({ ratio: { min: 0, max: 1, step: 1e-13 } })).toEqual([{ path: 'searchSpace.ratio.step', message: 'Too small for values of this size' }]);
    expect(problemsOf({ ratio: { values: [0.1], min: 0 }, fast: 5 })).toEqual([
      { path: 'searchSpace.ratio', message: 'Must be { values: [...] } or { min, max, step }' },
      { path: 'searchSpace.fast', message: 'Must be { values: [...] } or { min, max, step }' },
    ]);
    expect(problemsOf({})).toEqual([{ path: 'searchSpace', message: 'Name at least one parameter to search' }]);
  });

  it('names no parameter as known when the strategy declares none', () => {
    expect(() => checkSearchSpace({ fast: { values: [1] } }, undefined)).toThrow(validationError(/declares none/));
  });
});

describe('gridPoints and gridPoint', () => {
  it('expands ranges from min by step, last parameter fastest', () => {
    const space: SearchSpace = { fast: { min: 1, max: 10, step: 3 }, mode: { values: ['ema', 'sma'] } };
    const grid = gridPoints(space, 100);
    expect(grid).toEqual({ values: { fast: [1, 4, 7, 10], mode: ['ema', 'sma'] }, size: 8 });
    expect([0, 1, 2, 7].map((i) => gridPoint(space, i))).toEqual([
      { fast: 1, mode: 'ema' },
      { fast: 1, mode: 'sma' },
      { fast: 4, mode: 'ema' },
      { fast: 10, mode: 'sma' },
    ]);
    // A max between steps is not reached.
    expect(gridPoints({ fast: { min: 1, max: 9, step: 3 } }, 100).values.fast).toEqual([1, 4, 7]);
  });

  it('gives float steps exactly: 0 to 1 by 0.1 is 11 values, each the decimal a user would write', () => {
    const { values, size } = gridPoints({ ratio: { min: 0, max: 1, step: 0.1 } }, 100);
    expect(size).toBe(11);
    expect(values.ratio!.map(String)).toEqual(['0', '0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8', '0.9', '1']);
    // 3 × 0.1 is 0.30000000000000004 in floating point: still inside max, and still 0.3.
    expect(gridPoints({ ratio: { min: 0, max: 0.3, step: 0.1 } }, 100).values.ratio).toEqual([0, 0.1, 0.2, 0.3]);
    expect(gridPoints({ ratio: { min: 0.15, max: 0.5, step: 0.05 } }, 100).values.ratio!.map(String)).toEqual([
      '0.15',
      '0.2',
      '0.25',
      '0.3',
      '0.35',
      '0.4',
      '0.45',
      '0.5',
    ]);
    const fine = gridPoints({ ratio: { min: 0, max: 1, step: 0.001 } }, 10_000).values.ratio!;
    expect(fine).toHaveLength(1001);
    expect(fine[1000]).toBe(1);
    expect(fine[567]).toBe(0.567);
  });

  it('produces only values a backtest of the strategy accepts', () => {
    const space: SearchSpace = { ratio: { min: 0, max: 1, step: 0.1 }, fast: { min: 90, max: 100, step: 5 } };
    checkSearchSpace(space, params);
    for (const point of cartesian(gridPoints(space, 100).values)) {
      const given = Object.fromEntries(Object.entries(point).map(([name, value]) => [name, String(value)]));
      expect(parseStrategyParams(params, given)).toMatchObject(point);
    }
  });

  it('answers the cartesian product at every index', () => {
    const space: SearchSpace = { fast: { min: 2, max: 8, step: 2 }, trend: { values: [true, false] }, ratio: { min: 0.5, max: 1, step: 0.25 } };
    const grid = gridPoints(space, 1000);
    const product = cartesian(grid.values);
    expect(grid.size).toBe(24);
    expect(product).toHaveLength(24);
    expect(Array.from({ length: grid.size }, (_, i) => gridPoint(space, i))).toEqual(product);
    expect(() => gridPoint(space, 24)).toThrow(RangeError);
    expect(() => gridPoint(space, -1)).toThrow(RangeError);
  });

  it('refuses a grid above the cap before building it', () => {
    const space: SearchSpace = { fast: { min: 1, max: 100, step: 1 }, ratio: { min: 0, max: 1, step: 0.01 } };
    expect(() => gridPoints(space, 10_000)).toThrow(validationError(/^Invalid searchSpace: The grid has 10100 combinations; at most 10000 are allowed$/));
    // A trillion values a parameter: refused at once, nothing is expanded.
    const huge: SearchSpace = { ratio: { min: 0, max: 1, step: 1e-12 }, fast: { min: 1, max: 100, step: 1 } };
    expect(gridSize(huge)).toBe(100 * (1e12 + 1));
    expect(() => gridPoints(huge, 10_000)).toThrow(validationError(/at most 10000/));
  });
});

describe('randomPoints', () => {
  const space: SearchSpace = { fast: { min: 1, max: 100, step: 1 }, ratio: { min: 0, max: 1, step: 0.1 }, mode: { values: ['ema', 'sma', 'wma'] } };
  const key = (point: SearchPoint) => JSON.stringify(point);

  it('is reproducible: the same seed gives the same points, another seed others', () => {
    const points = randomPoints(space, 50, 7);
    expect(randomPoints(space, 50, 7)).toEqual(points);
    expect(randomPoints(space, 50, 8)).not.toEqual(points);
  });

  it('draws grid values and never repeats a combination', () => {
    const grid = gridPoints(space, 10_000);
    const all = new Set(cartesian(grid.values).map(key));
    for (const count of [50, 1000, 3000]) {
      const points = randomPoints(space, count, 3);
      expect(points).toHaveLength(count);
      expect(new Set(points.map(key)).size).toBe(count);
      for (const point of points) expect(all.has(key(point))).toBe(true);
    }
  });

  it('answers the whole grid in a seeded order when count reaches its size', () => {
    const small: SearchSpace = { fast: { min: 1, max: 4, step: 1 }, mode: { values: ['ema', 'sma', 'wma'] } };
    const grid = Array.from({ length: 12 }, (_, i) => gridPoint(small, i));
    const points = randomPoints(small, 500, 11);
    expect(points).toHaveLength(12);
    expect(new Set(points.map(key))).toEqual(new Set(grid.map(key)));
    expect(points).not.toEqual(grid);
    expect(randomPoints(small, 12, 11)).toEqual(points);
  });

  it('draws each parameter uniformly, even from a grid too large to enumerate', () => {
    const large: SearchSpace = { mode: { values: ['ema', 'sma', 'wma'] }, ratio: { min: 0, max: 1, step: 1e-9 }, fast: { min: 1, max: 100, step: 1 } };
    expect(gridSize(large)).toBeGreaterThan(1e11);
    const points = randomPoints(large, 3000, 5);
    expect(new Set(points.map(key)).size).toBe(3000);
    const modes = ['ema', 'sma', 'wma'].map((mode) => points.filter((point) => point.mode === mode).length);
    for (const n of modes) expect(Math.abs(n - 1000)).toBeLessThan(100);
    const ratios = points.map((point) => point.ratio as number);
    expect(ratios.filter((ratio) => ratio < 0.5).length).toBeGreaterThan(1400);
    expect(ratios.filter((ratio) => ratio < 0.5).length).toBeLessThan(1600);
    for (const ratio of ratios) expect(ratio).toBe(Number(ratio.toFixed(9)));
  });
});
