import { PairSensitivity, ParamSensitivity } from '@stratbox/contract';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../engine/guest/determinism.js';
import { type SearchSpace, gridPoint, gridPoints, randomPoints } from './search-space.js';
import { MAX_SENSITIVITY_PAIR_CELLS, type SearchedParam, type SensitivityTrial, pairSensitivity, paramSensitivity } from './sensitivity.js';

function trial(params: Record<string, string>, objective: number | null, feasible = true): SensitivityTrial {
  return { params, objective, feasible };
}

/** The searched parameters of a space, values as strings the way trials carry them. */
function searchedOf(space: SearchSpace): SearchedParam[] {
  const grid = gridPoints(space, 1_000_000);
  return Object.keys(space).map((name) => ({ name, values: grid.values[name]!.map(String) }));
}

function stringParams(point: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(point).map(([name, value]) => [name, String(value)]));
}

describe('paramSensitivity', () => {
  const searched: SearchedParam[] = [
    { name: 'fast', values: ['5', '10'] },
    { name: 'slow', values: ['20', '30', '40'] },
  ];

  it('computes best, mean and count per value as by hand, over feasible trials only', () => {
    const trials = [
      trial({ fast: '5', slow: '20' }, 1),
      trial({ fast: '5', slow: '30' }, 3),
      trial({ fast: '5', slow: '40' }, 5, false), // infeasible: ignored
      trial({ fast: '10', slow: '20' }, -2),
      trial({ fast: '10', slow: '30' }, null, false), // failed: ignored
      trial({ fast: '10', slow: '40' }, 0.5),
    ];
    const result = paramSensitivity(trials, searched);
    for (const param of result) expect(ParamSensitivity.parse(param)).toEqual(param);
    expect(result).toEqual([
      {
        param: 'fast',
        values: [
          { value: '5', best: 3, mean: 2, trials: 2 },
          { value: '10', best: 0.5, mean: -0.75, trials: 2 },
        ],
      },
      {
        param: 'slow',
        values: [
          { value: '20', best: 1, mean: -0.5, trials: 2 },
          { value: '30', best: 3, mean: 3, trials: 1 },
          { value: '40', best: 0.5, mean: 0.5, trials: 1 },
        ],
      },
    ]);
  });

  it('lists every value in grid order, with null where no feasible trial ran', () => {
    const result = paramSensitivity([trial({ fast: '10', slow: '40' }, 2)], searched);
    expect(result[1]!.values).toEqual([
      { value: '20', best: null, mean: null, trials: 0 },
      { value: '30', best: null, mean: null, trials: 0 },
      { value: '40', best: 2, mean: 2, trials: 1 },
    ]);
    expect(paramSensitivity([], searched)[0]!.values.map((v) => v.best)).toEqual([null, null]);
  });

  it('matches values by their string; an unlisted value or a missing parameter counts for no value of it', () => {
    const trials = [trial({ fast: '5.0', slow: '20' }, 4), trial({ slow: '20' }, 6), trial({ fast: '5', slow: '20', other: 'x' }, 1)];
    const [fast, slow] = paramSensitivity(trials, searched);
    expect(fast!.values[0]).toEqual({ value: '5', best: 1, mean: 1, trials: 1 });
    expect(slow!.values[0]).toEqual({ value: '20', best: 6, mean: 11 / 3, trials: 3 });
  });

  it('ignores a non-finite objective', () => {
    const result = paramSensitivity([trial({ fast: '5', slow: '20' }, Number.NaN), trial({ fast: '5', slow: '20' }, Number.POSITIVE_INFINITY)], searched);
    expect(result[0]!.values[0]).toEqual({ value: '5', best: null, mean: null, trials: 0 });
  });

  it('does not depend on the order of the trials (means up to rounding)', () => {
    const random = createRandom(3);
    const trials = Array.from({ length: 40 }, (_, i) =>
      trial({ fast: searched[0]!.values[i % 2]!, slow: searched[1]!.values[i % 3]! }, Math.round(random() * 100) / 10, i % 4 !== 0),
    );
    const forward = paramSensitivity(trials, searched);
    const backward = paramSensitivity([...trials].reverse(), searched);
    expect(backward.map((p) => p.values.map(({ best, trials }) => ({ best, trials })))).toEqual(
      forward.map((p) => p.values.map(({ best, trials }) => ({ best, trials }))),
    );
    backward.forEach((p, i) => p.values.forEach((v, j) => expect(v.mean).toBeCloseTo(forward[i]!.values[j]!.mean!, 12)));
    expect(forward[1]!.values.map((v) => v.trials)).toEqual([10, 10, 10]);
  });
});

describe('pairSensitivity', () => {
  it('is, in each cell, the max objective of the feasible trials at that pair of values', () => {
    const space: SearchSpace = { a: { values: [1, 2, 3] }, b: { min: 0, max: 0.2, step: 0.1 }, c: { values: ['x', 'y'] } };
    const searched = searchedOf(space);
    const points = Array.from({ length: gridPoints(space, 1_000).size }, (_, i) => gridPoint(space, i));
    const random = createRandom(11);
    // Two trials per grid point (two folds, say), random objectives, some infeasible.
    const trials = [...points, ...points].map((point) => trial(stringParams(point), Math.floor(random() * 1000) - 500, random() < 0.8));
    const pairs = pairSensitivity(trials, searched);
    expect(pairs.map((p) => p.params)).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ]);
    for (const pair of pairs) {
      expect(pair.x).toEqual(searched.find((s) => s.name === pair.params[0])!.values);
      expect(pair.y).toEqual(searched.find((s) => s.name === pair.params[1])!.values);
      pair.x.forEach((xValue, i) => {
        pair.y.forEach((yValue, j) => {
          const at = trials.filter((t) => t.feasible && t.params[pair.params[0]] === xValue && t.params[pair.params[1]] === yValue);
          expect(pair.best[i]![j]).toBe(at.length ? Math.max(...at.map((t) => t.objective!)) : null);
        });
      });
    }
    expect(pairs[0]!.y).toEqual(['0', '0.1', '0.2']);
  });

  it('computes a small grid by hand', () => {
    const searched: SearchedParam[] = [
      { name: 'fast', values: ['5', '10'] },
      { name: 'slow', values: ['20', '30'] },
    ];
    const trials = [
      trial({ fast: '5', slow: '20' }, 1),
      trial({ fast: '5', slow: '20' }, 2.5),
      trial({ fast: '5', slow: '30' }, -1),
      trial({ fast: '10', slow: '20' }, 9, false),
      trial({ fast: '10', slow: '30' }, 0),
    ];
    const pairs = pairSensitivity(trials, searched);
    expect(PairSensitivity.parse(pairs[0])).toEqual(pairs[0]);
    expect(pairs).toEqual([
      {
        params: ['fast', 'slow'],
        x: ['5', '10'],
        y: ['20', '30'],
        best: [
          [2.5, -1],
          [null, 0],
        ],
      },
    ]);
  });

  it('leaves holes, not zeros, where a sparse random search never went', () => {
    const space: SearchSpace = { p: { min: 1, max: 20, step: 1 }, q: { min: 1, max: 20, step: 1 }, r: { values: [true, false] } };
    const searched = searchedOf(space);
    const points = randomPoints(space, 30, 5);
    const trials = points.map((point) => trial(stringParams(point), Number(point.p) * Number(point.q)));
    const [pq] = pairSensitivity(trials, searched);
    const cells = pq!.best.flat();
    expect(cells.length).toBe(400);
    const visited = new Set(points.map((point) => `${point.p},${point.q}`));
    expect(cells.filter((c) => c !== null).length).toBe(visited.size);
    for (const point of points) expect(pq!.best[Number(point.p) - 1]![Number(point.q) - 1]).toBe(Number(point.p) * Number(point.q));
  });

  it('has no pair with one parameter, and pairs only the first 10 parameters (45 heatmaps)', () => {
    expect(pairSensitivity([trial({ a: '1' }, 1)], [{ name: 'a', values: ['1'] }])).toEqual([]);
    const searched = Array.from({ length: 12 }, (_, i) => ({ name: `p${i}`, values: ['0', '1'] }));
    const params = Object.fromEntries(searched.map((s) => [s.name, '1']));
    const pairs = pairSensitivity([trial(params, 7)], searched);
    expect(pairs.length).toBe(45);
    expect(pairs.at(-1)!.params).toEqual(['p8', 'p9']);
    expect(pairs.every((p) => p.best[1]![1] === 7 && p.best[0]![0] === null)).toBe(true);
    expect(paramSensitivity([trial(params, 7)], searched).length).toBe(12);
  });

  it('leaves out the pairs whose heatmap would exceed 10,000 cells, keeping the others in order', () => {
    const values = (count: number) => Array.from({ length: count }, (_, v) => String(v));
    const searched: SearchedParam[] = [
      { name: 'wide', values: values(1000) },
      { name: 'hundred', values: values(100) },
      { name: 'ten', values: values(10) },
      { name: 'hundredOne', values: values(101) },
    ];
    const trials = [trial({ wide: '999', hundred: '99', ten: '9', hundredOne: '100' }, 5)];
    const pairs = pairSensitivity(trials, searched);
    // wide x hundred (100,000), wide x hundredOne (101,000) and hundred x hundredOne (10,100) are over.
    expect(pairs.map((p) => p.params)).toEqual([
      ['wide', 'ten'],
      ['hundred', 'ten'],
      ['ten', 'hundredOne'],
    ]);
    expect(MAX_SENSITIVITY_PAIR_CELLS).toBe(10_000);
    expect(pairs[0]!.best.flat().length).toBe(10_000);
    expect(pairs[0]!.best[999]![9]).toBe(5);
    expect(pairs[2]!.best[9]![100]).toBe(5);
    // 1-parameter sensitivity keeps every parameter.
    expect(paramSensitivity(trials, searched).map((p) => p.values.length)).toEqual([1000, 100, 10, 101]);
  });

  it('has no heatmap for a random search over 10 parameters of 1,000 values each, instead of 45 of a million cells', () => {
    const searched = Array.from({ length: 10 }, (_, i) => ({ name: `p${i}`, values: Array.from({ length: 1000 }, (_, v) => String(v)) }));
    const random = createRandom(5);
    const trials = Array.from({ length: 2000 }, () => trial(Object.fromEntries(searched.map((s) => [s.name, String(Math.floor(random() * 1000))])), random()));
    expect(pairSensitivity(trials, searched)).toEqual([]);
    expect(paramSensitivity(trials, searched).length).toBe(10);
  });
});
