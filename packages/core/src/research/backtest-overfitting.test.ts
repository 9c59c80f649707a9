import { describe, expect, it } from 'vitest';
import {
  combinationsOf,
  complementsPaired,
  probabilityOfBacktestOverfitting,
  probabilityOfBacktestOverfittingAsync,
  sharpeMetric,
} from './backtest-overfitting.js';
import { eventLoopTicks, normals, validationError } from './test-fixtures.js';

/** A T x N matrix of normal returns, trial n with mean `means[n]` and standard deviation 1. */
function returnsMatrix(seed: number, periods: number, means: readonly number[]): number[][] {
  const draw = normals(seed);
  return Array.from({ length: periods }, () => means.map((mean) => mean + draw()));
}

describe('probabilityOfBacktestOverfitting', () => {
  // T = 4 periods, S = 4 blocks of one period, N = 3 trials A, B, C. With two periods a and b the
  // Sharpe ratio (population standard deviation |a - b| / 2) is (a + b) / |a - b|.
  //            A   B   C
  const matrix = [
    [3, 1, 2], // period 0
    [1, 2, -1], // period 1
    [-2, 5, 3], // period 2
    [0, 4, 1], // period 3
  ];
  // In-sample {0,1}: A 4/2 = 2, B 3/1 = 3, C 1/3: B. Out-of-sample {2,3}: A -2/2 = -1, B 9/1 = 9, C 4/2 = 2;
  //   B ranks 3 of 3, w = 3/4, lambda = ln 3.
  // In-sample {0,2}: A 1/5, B 6/4 = 3/2, C 5/1 = 5: C. Out-of-sample {1,3}: A 1/1 = 1, B 6/2 = 3, C 0/2 = 0;
  //   C ranks 1, w = 1/4, lambda = -ln 3.
  // In-sample {0,3}: A 3/3 = 1, B 5/3, C 3/1 = 3: C. Out-of-sample {1,2}: A -1/3, B 7/3, C 2/4 = 1/2;
  //   C ranks 2, w = 1/2, lambda = 0.
  // In-sample {1,2}: A -1/3, B 7/3, C 1/2: B. Out-of-sample {0,3}: A 1, B 5/3, C 3; B ranks 2, w = 1/2, lambda = 0.
  // In-sample {1,3}: A 1, B 3, C 0: B. Out-of-sample {0,2}: A 1/5, B 3/2, C 5; B ranks 2, w = 1/2, lambda = 0.
  // In-sample {2,3}: A -1, B 9, C 2: B. Out-of-sample {0,1}: A 2, B 3, C 1/3; B ranks 3, w = 3/4, lambda = ln 3.
  // lambda <= 0 in 4 of the 6 combinations: PBO = 2/3.
  it('pairs each split with its mirror: in lexicographic order the k-th from the end is the complement of the k-th, for every S up to 16', () => {
    for (let S = 2; S <= 16; S += 2) {
      const splits = combinationsOf(S, S / 2);
      expect(complementsPaired(splits, S)).toBe(true);
      // and a list that is not so ordered is told apart
      expect(complementsPaired([...splits.slice(1), splits[0]!], S)).toBe(S === 2);
    }
  });

  it('computes every combination of a small case as by hand', () => {
    const result = probabilityOfBacktestOverfitting(matrix, { partitions: 4 });
    const expected = [
      { inSample: [0, 1], selected: 1, inSampleMetric: 3, outOfSampleMetric: 9, relativeRank: 3 / 4, logit: Math.log(3) },
      { inSample: [0, 2], selected: 2, inSampleMetric: 5, outOfSampleMetric: 0, relativeRank: 1 / 4, logit: -Math.log(3) },
      { inSample: [0, 3], selected: 2, inSampleMetric: 3, outOfSampleMetric: 1 / 2, relativeRank: 1 / 2, logit: 0 },
      { inSample: [1, 2], selected: 1, inSampleMetric: 7 / 3, outOfSampleMetric: 5 / 3, relativeRank: 1 / 2, logit: 0 },
      { inSample: [1, 3], selected: 1, inSampleMetric: 3, outOfSampleMetric: 3 / 2, relativeRank: 1 / 2, logit: 0 },
      { inSample: [2, 3], selected: 1, inSampleMetric: 9, outOfSampleMetric: 3, relativeRank: 3 / 4, logit: Math.log(3) },
    ];
    expect(result.combinations.length).toBe(6);
    result.combinations.forEach((combination, i) => {
      const want = expected[i]!;
      expect(combination.inSample).toEqual(want.inSample);
      expect(combination.selected).toBe(want.selected);
      expect(combination.inSampleMetric).toBeCloseTo(want.inSampleMetric, 12);
      expect(combination.outOfSampleMetric).toBeCloseTo(want.outOfSampleMetric, 12);
      expect(combination.relativeRank).toBe(want.relativeRank);
      expect(combination.logit).toBeCloseTo(want.logit, 14);
    });
    expect(result.pbo).toBeCloseTo(2 / 3, 15);
    expect(result).toMatchObject({ periods: 4, trials: 3, partitions: 4 });
  });

  it('hands a custom metric each trial’s in-sample rows in time order, and shares ranks on ties', () => {
    const seen: number[][] = [];
    const total = (values: readonly number[]) => {
      seen.push([...values]);
      return values.reduce((a, b) => a + b, 0);
    };
    const result = probabilityOfBacktestOverfitting(matrix, { partitions: 4, metric: total });
    // First combination: in-sample rows 0 and 1 of A, B, C, then out-of-sample rows 2 and 3.
    expect(seen.slice(0, 6)).toEqual([
      [3, 1],
      [1, 2],
      [2, -1],
      [-2, 0],
      [5, 4],
      [3, 1],
    ]);
    // In-sample {0,1} totals A 4, B 3, C 1: A. Out-of-sample totals A -2, B 9, C 4: A ranks 1, w = 1/4.
    expect(result.combinations[0]).toMatchObject({ selected: 0, inSampleMetric: 4, outOfSampleMetric: -2, relativeRank: 1 / 4 });
    // In-sample {0,3} totals A 3, B 5, C 3: B. Out-of-sample {1,2} totals A -1, B 7, C 2: B ranks 3.
    expect(result.combinations[2]).toMatchObject({ selected: 1, relativeRank: 3 / 4 });
    // A tie out-of-sample: two trials equal on every period share ranks 2 and 3, i.e. 2.5 each.
    const tied = probabilityOfBacktestOverfitting(
      [
        [1, 0, 0],
        [1, 0, 0],
      ],
      { partitions: 2 },
    );
    // Trial 0 is best in-sample and ranks 3 (w = 3/4); where trials 1 and 2 tie in-sample, the first is selected.
    expect(tied.combinations.map((c) => c.relativeRank)).toEqual([3 / 4, 3 / 4]);
    const flat = probabilityOfBacktestOverfitting(
      [
        [0, 1, 1],
        [0, 1, 1],
      ],
      { partitions: 2 },
    );
    // Trials 1 and 2 tie for best in-sample: trial 1 is selected and shares ranks 2 and 3 out-of-sample.
    expect(flat.combinations.map((c) => [c.selected, c.relativeRank])).toEqual([
      [1, 2.5 / 4],
      [1, 2.5 / 4],
    ]);
  });

  it('gives the same answer with the default Sharpe ratio (merged, cached by prefix) and the same metric passed in', () => {
    for (const [seed, periods, partitions] of [
      [3, 203, 8],
      [4, 250, 16],
    ] as const) {
      const data = returnsMatrix(seed, periods, [0, 0.05, 0.1, -0.05, 0]);
      const fast = probabilityOfBacktestOverfitting(data, { partitions });
      const slow = probabilityOfBacktestOverfitting(data, { partitions, metric: sharpeMetric });
      expect(fast.pbo).toBe(slow.pbo);
      fast.combinations.forEach((c, i) => {
        expect(c.selected).toBe(slow.combinations[i]!.selected);
        expect(c.inSampleMetric).toBeCloseTo(slow.combinations[i]!.inSampleMetric, 12);
        expect(c.outOfSampleMetric).toBeCloseTo(slow.combinations[i]!.outOfSampleMetric, 12);
      });
    }
  });

  it('is near 1/2 for trials of pure noise (seeded)', () => {
    // For N even the out-of-sample rank of a lucky pick is uniform: P(lambda <= 0) = 1/2 exactly.
    // One matrix's PBO varies (its combinations share data), so this averages 8 of them.
    const pbos = Array.from({ length: 8 }, (_, seed) => probabilityOfBacktestOverfitting(returnsMatrix(100 + seed, 800, Array(20).fill(0))).pbo);
    const mean = pbos.reduce((a, b) => a + b, 0) / pbos.length;
    expect(mean).toBeGreaterThan(0.35);
    expect(mean).toBeLessThan(0.65);
  });

  it('is near 0 when one trial is truly better, and the in-sample best keeps its edge out-of-sample', () => {
    const means = Array(20).fill(0);
    means[7] = 0.2;
    const result = probabilityOfBacktestOverfitting(returnsMatrix(21, 1000, means));
    expect(result.combinations.length).toBe(12870);
    expect(result.pbo).toBeLessThan(0.05);
    expect(result.combinations.filter((c) => c.selected === 7).length / 12870).toBeGreaterThan(0.95);
    const meanOutOfSample = result.combinations.reduce((a, c) => a + c.outOfSampleMetric, 0) / 12870;
    expect(meanOutOfSample).toBeGreaterThan(0.1);
  });

  it('cuts periods S does not divide into blocks one row apart, dropping none', () => {
    // T = 5, S = 2: blocks of rows 0-2 and 3-4. A custom metric sees 3 rows in-sample then 2, for
    // each of the 2 trials; the other split is the mirror of this one and scores nothing again.
    const lengths: number[] = [];
    probabilityOfBacktestOverfitting(returnsMatrix(5, 5, [0, 0]), {
      partitions: 2,
      metric: (values) => {
        lengths.push(values.length);
        return values[0]!;
      },
    });
    expect(lengths).toEqual([3, 3, 2, 2]);
  });

  it('refuses what CSCV cannot use', () => {
    const ok = returnsMatrix(1, 16, [0, 0, 0]);
    expect(() => probabilityOfBacktestOverfitting(ok, { partitions: 3 })).toThrow(validationError(/even/));
    expect(() => probabilityOfBacktestOverfitting(ok, { partitions: 0 })).toThrow(validationError(/even/));
    expect(() => probabilityOfBacktestOverfitting(ok.slice(0, 10))).toThrow(validationError(/At least 16 periods/));
    expect(() => probabilityOfBacktestOverfitting(returnsMatrix(1, 16, [0]))).toThrow(validationError(/2 trials/));
    expect(() => probabilityOfBacktestOverfitting([...ok.slice(1), [0, 0]])).toThrow(validationError(/one value per trial/));
    expect(() => probabilityOfBacktestOverfitting([...ok.slice(1), [0, Number.NaN, 0]])).toThrow(validationError(/finite/));
    expect(() => probabilityOfBacktestOverfitting(ok, { partitions: 2, metric: () => Number.NaN })).toThrow(validationError(/NaN/));
  });
});

describe('probabilityOfBacktestOverfittingAsync', () => {
  it('answers exactly what the sync function answers, in any slicing', async () => {
    const cases = [
      { data: returnsMatrix(3, 203, [0, 0.05, 0.1, -0.05, 0]), options: { partitions: 8 } },
      { data: returnsMatrix(4, 250, Array(40).fill(0)), options: { partitions: 16 } },
      { data: returnsMatrix(5, 37, [0.3, 0, 0, 0.1]), options: { partitions: 16 } },
      { data: returnsMatrix(6, 30, [0, 0.1, 0.2]), options: { partitions: 6, metric: sharpeMetric } },
    ];
    for (const { data, options } of cases) {
      const sync = probabilityOfBacktestOverfitting(data, options);
      // toEqual compares every number exactly (Object.is): the same bits.
      expect(await probabilityOfBacktestOverfittingAsync(data, options)).toEqual(sync);
      // One step per slice: the computation resumes at every point it can stop.
      expect(await probabilityOfBacktestOverfittingAsync(data, options, { sliceMs: 0 })).toEqual(sync);
    }
  });

  it('lets timers and other callbacks run while it computes 1,000 trials x 500 periods (12,870 splits)', async () => {
    const data = returnsMatrix(8, 500, Array(1000).fill(0));
    const events: string[] = [];
    setTimeout(() => events.push('timer'), 0);
    const ticks = eventLoopTicks();
    const result = await probabilityOfBacktestOverfittingAsync(data).finally(() => events.push('done'));
    const turns = ticks.stop();
    expect(result.combinations.length).toBe(12_870);
    expect(events).toEqual(['timer', 'done']);
    // About 0.5 s of work in slices of 10 ms: dozens of turns of the event loop, not one.
    expect(turns).toBeGreaterThan(10);
  }, 60_000);

  it('rejects as the sync function throws, and with the signal’s reason once aborted', async () => {
    await expect(probabilityOfBacktestOverfittingAsync(returnsMatrix(1, 16, [0, 0, 0]), { partitions: 3 })).rejects.toThrow(validationError(/even/));
    const data = returnsMatrix(9, 300, Array(400).fill(0));
    const aborted = new AbortController();
    aborted.abort(new Error('cancelled before'));
    await expect(probabilityOfBacktestOverfittingAsync(data, {}, { signal: aborted.signal })).rejects.toThrow('cancelled before');
    const controller = new AbortController();
    const running = probabilityOfBacktestOverfittingAsync(data, {}, { signal: controller.signal, sliceMs: 1 });
    setTimeout(() => controller.abort(new Error('cancelled during')), 5);
    await expect(running).rejects.toThrow('cancelled during');
  });
});
