import { describe, expect, it } from 'vitest';
import { createRandom } from '../engine/guest/determinism.js';
import type { TimeWindow } from '../backtests/engine/time-window.js';
import { validationError } from './test-fixtures.js';
import { MIN_WINDOW_CANDLES, stitchEquity, type ValidationFold, type ValidationScheme, validationWindows, walkForwardEfficiency } from './walk-forward.js';

const SECOND = 1000;
const DAY = 86_400_000;

/** The folds as `[inSample.start, inSample.end, outOfSample.start, outOfSample.end]`, for literal expectations. */
function spans(folds: ValidationFold[]): number[][] {
  return folds.map((f) => [f.inSample.start, f.inSample.end, f.outOfSample.start, f.outOfSample.end]);
}

describe('validationWindows', () => {
  const tenSeconds = { start: 0, end: 10_000 };

  it('rolling walk-forward, default in-sample fraction: the range in folds + 1 equal blocks', () => {
    // 10 candles, 4 folds: blocks of 2 candles; each in-sample is the block before its out-of-sample.
    expect(spans(validationWindows(tenSeconds, { kind: 'walk-forward', folds: 4, mode: 'rolling' }, SECOND))).toEqual([
      [0, 2000, 2000, 4000],
      [2000, 4000, 4000, 6000],
      [4000, 6000, 6000, 8000],
      [6000, 8000, 8000, 10_000],
    ]);
  });

  it('anchored walk-forward: the same out-of-sample blocks, every in-sample from range.start', () => {
    expect(spans(validationWindows(tenSeconds, { kind: 'walk-forward', folds: 4, mode: 'anchored' }, SECOND))).toEqual([
      [0, 2000, 2000, 4000],
      [0, 4000, 4000, 6000],
      [0, 6000, 6000, 8000],
      [0, 8000, 8000, 10_000],
    ]);
  });

  it('gives the rounding rest to the in-sample window', () => {
    // 11 candles, 4 folds: b = floor(11 / 5) = 2, m = 11 - 8 = 3.
    expect(spans(validationWindows({ start: 0, end: 11_000 }, { kind: 'walk-forward', folds: 4, mode: 'rolling' }, SECOND))).toEqual([
      [0, 3000, 3000, 5000],
      [2000, 5000, 5000, 7000],
      [4000, 7000, 7000, 9000],
      [6000, 9000, 9000, 11_000],
    ]);
  });

  it('splits 80/20 by inSampleFraction on daily candles (90 days, 5 folds: 40 days in, 10 out)', () => {
    // 90 × 0.2 / (5 × 0.2 + 0.8) is 10 on paper and 9.999999999999998 in floating point: still 10.
    const range = { start: 1704067200000, end: 1711843200000 }; // 2024-01-01 .. 2024-03-31
    const folds = validationWindows(range, { kind: 'walk-forward', folds: 5, mode: 'rolling', inSampleFraction: 0.8 }, DAY);
    expect(folds).toHaveLength(5);
    expect(spans(folds)[0]).toEqual([1704067200000, 1707523200000, 1707523200000, 1708387200000]); // days 0-40, 40-50
    expect(spans(folds)[4]).toEqual([1707523200000, 1710979200000, 1710979200000, 1711843200000]); // days 40-80, 80-90
  });

  it('holdout: the last fraction of the candles, rounded to the nearest candle', () => {
    expect(spans(validationWindows(tenSeconds, { kind: 'holdout', fraction: 0.2 }, SECOND))).toEqual([[0, 8000, 8000, 10_000]]);
    expect(spans(validationWindows(tenSeconds, { kind: 'holdout', fraction: 0.33 }, SECOND))).toEqual([[0, 7000, 7000, 10_000]]);
  });

  it('leaves a rest shorter than a candle out of every window', () => {
    expect(spans(validationWindows({ start: 500, end: 11_200 }, { kind: 'holdout', fraction: 0.3 }, SECOND))).toEqual([[500, 7500, 7500, 10_500]]);
  });

  it('none: no folds', () => {
    expect(validationWindows(tenSeconds, { kind: 'none' }, SECOND)).toEqual([]);
  });

  it('refuses impossible schemes with VALIDATION_FAILED and a path', () => {
    const refused = (scheme: ValidationScheme, message: RegExp, range: TimeWindow = tenSeconds, timeframe = SECOND) =>
      expect(() => validationWindows(range, scheme, timeframe)).toThrow(validationError(message));
    for (const fraction of [0, 1, -0.2, 1.5, Number.NaN]) refused({ kind: 'holdout', fraction }, /^Invalid scheme\.fraction: must be a number between 0 and 1/);
    refused({ kind: 'holdout', fraction: 0.05 }, /scheme\.fraction: an out-of-sample window would hold 1 candle,/);
    refused({ kind: 'holdout', fraction: 0.9 }, /scheme\.fraction: an in-sample window would hold 1 candle,/);
    refused({ kind: 'holdout', fraction: 0.96 }, /scheme\.fraction: an in-sample window would hold 0 candles,/);
    for (const folds of [0, -1, 1.5]) refused({ kind: 'walk-forward', folds, mode: 'rolling' }, /^Invalid scheme\.folds: must be a whole number/);
    // 5 folds of 10 candles: out-of-sample blocks of floor(10 / 6) = 1 candle.
    refused({ kind: 'walk-forward', folds: 5, mode: 'anchored' }, /scheme\.folds: an out-of-sample window would hold 1 candle,/);
    // p = 0.01, 3 folds: b = floor(9.9 / 2.98) = 3, m = 10 - 9 = 1.
    refused({ kind: 'walk-forward', folds: 3, mode: 'rolling', inSampleFraction: 0.01 }, /scheme\.inSampleFraction: an in-sample window would hold 1 candle,/);
    refused({ kind: 'walk-forward', folds: 2, mode: 'rolling', inSampleFraction: 1 }, /scheme\.inSampleFraction: must be a number between 0 and 1/);
    refused({ kind: 'walk-forward', folds: 2, mode: 'sideways' as 'rolling' }, /scheme\.mode/);
    refused({ kind: 'walk-forward', folds: 1, mode: 'rolling' }, /range\.end: must be after range\.start/, { start: 5000, end: 5000 });
    refused({ kind: 'none' }, /timeframeMs/, tenSeconds, 0);
    refused({ kind: 'none' }, /timeframeMs/, tenSeconds, 1.5);
    // The details are the same `{ path, message }` list a refused request body carries.
    expect(() => validationWindows(tenSeconds, { kind: 'walk-forward', folds: 0, mode: 'rolling' }, SECOND)).toThrow(
      expect.objectContaining({ details: [{ path: 'scheme.folds', message: 'must be a whole number of at least 1' }] }),
    );
  });

  it('never leaks, for many random ranges, timeframes and schemes', () => {
    const random = createRandom(16);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const timeframes = [60_000, 300_000, 3_600_000, 4 * 3_600_000, DAY, 7 * DAY];
    let answered = 0;
    for (let run = 0; run < 2000; run++) {
      const timeframe = pick(timeframes);
      const candles = 4 + Math.floor(random() * 3000);
      const start = 1_500_000_000_000 + Math.floor(random() * 2e11);
      const rest = random() < 0.5 ? 0 : Math.floor(random() * timeframe);
      const range = { start, end: start + candles * timeframe + rest };
      const scheme: ValidationScheme =
        random() < 0.2
          ? { kind: 'holdout', fraction: 0.01 + 0.98 * random() }
          : {
              kind: 'walk-forward',
              folds: 1 + Math.floor(random() * 30),
              mode: pick(['rolling', 'anchored'] as const),
              ...(random() < 0.5 ? {} : { inSampleFraction: 0.02 + 0.96 * random() }),
            };
      let folds: ValidationFold[];
      try {
        folds = validationWindows(range, scheme, timeframe);
      } catch (error) {
        expect(error, JSON.stringify({ range, scheme, timeframe })).toEqual(validationError(/would hold/));
        continue;
      }
      answered++;
      const where = JSON.stringify({ range, scheme, timeframe });
      expect(folds.length, where).toBe(scheme.kind === 'holdout' ? 1 : (scheme as { folds: number }).folds);
      const onCandle = (t: number) => (t - start) % timeframe === 0;
      const candlesIn = (w: TimeWindow) => (w.end - w.start) / timeframe;
      folds.forEach(({ inSample, outOfSample }, i) => {
        for (const t of [inSample.start, inSample.end, outOfSample.start, outOfSample.end]) expect(onCandle(t), where).toBe(true);
        // The no-leak property: the in-sample window ends where its out-of-sample starts, never after.
        expect(inSample.end, where).toBe(outOfSample.start);
        expect(inSample.start, where).toBeGreaterThanOrEqual(start);
        expect(candlesIn(inSample), where).toBeGreaterThanOrEqual(MIN_WINDOW_CANDLES);
        expect(candlesIn(outOfSample), where).toBe(candlesIn(folds[0]!.outOfSample));
        expect(candlesIn(outOfSample), where).toBeGreaterThanOrEqual(MIN_WINDOW_CANDLES);
        if (i > 0) expect(outOfSample.start, where).toBe(folds[i - 1]!.outOfSample.end);
        if (scheme.kind === 'walk-forward' && scheme.mode === 'anchored') expect(inSample.start, where).toBe(start);
        if (scheme.kind === 'walk-forward' && scheme.mode === 'rolling') expect(candlesIn(inSample), where).toBe(candlesIn(folds[0]!.inSample));
      });
      // The out-of-sample windows tile the tail up to the last whole candle.
      expect(folds[0]!.inSample.start, where).toBe(start);
      expect(folds[folds.length - 1]!.outOfSample.end, where).toBe(start + candles * timeframe);
    }
    expect(answered).toBeGreaterThan(1500);
  });
});

describe('stitchEquity', () => {
  it('chains the folds multiplicatively, in time order, with no duplicated time', () => {
    const stitched = stitchEquity([
      { initial: 1000, times: [0, 1000, 2000], values: [1100, 1210, 1100] }, // +10 %
      { initial: 500, times: [3000, 4000], values: [550, 450] }, // -10 %, from 1100: 1210, 990
      { initial: 2000, times: [4000, 5000], values: [3000, 1500] }, // -25 %, from 990: replaces 4000, then 742.5
    ]);
    expect(stitched.initial).toBe(1000);
    expect(stitched.times).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
    expect(stitched.values).toEqual([1100, 1210, 1100, 1210, 1485, 742.5].map((v) => expect.closeTo(v, 9)));
    // 1.1 × 0.9 × 0.75: the product of the folds' returns.
    expect(stitched.values[5]! / stitched.initial).toBeCloseTo(0.7425, 12);
  });

  it('holds a ruined chain where it ended', () => {
    const stitched = stitchEquity([
      { initial: 100, times: [0, 1], values: [50, -10] },
      { initial: 100, times: [2, 3], values: [120, 130] },
    ]);
    expect(stitched.values).toEqual([50, -10, -10, -10]);
  });

  it('refuses folds out of order, bad capital and malformed curves', () => {
    const a = { initial: 100, times: [0, 1000, 2000], values: [100, 101, 102] };
    expect(() => stitchEquity([])).toThrow(validationError(/folds: at least one fold/));
    expect(() => stitchEquity([a, { initial: 100, times: [1000, 3000], values: [1, 2] }])).toThrow(validationError(/folds\.1\.times\.0/));
    expect(() => stitchEquity([{ initial: 100, times: [0, 0], values: [1, 2] }])).toThrow(validationError(/folds\.0\.times\.1/));
    expect(() => stitchEquity([a, { initial: 0, times: [3000], values: [1] }])).toThrow(validationError(/folds\.1\.initial/));
    expect(() => stitchEquity([{ initial: 100, times: [0, 1], values: [1] }])).toThrow(validationError(/same length/));
    expect(() => stitchEquity([{ initial: 100, times: [0], values: [Number.NaN] }])).toThrow(validationError(/finite/));
  });
});

describe('walkForwardEfficiency', () => {
  const days = (from: number, to: number, totalReturn: number) => ({ start: from * DAY, end: to * DAY, totalReturn });

  it('is the mean of annualized out-of-sample over in-sample returns, over the folds with an in-sample gain', () => {
    const result = walkForwardEfficiency([
      // In: 20 % in 200 days = 36.5 % a year; out: 3 % in 50 days = 21.9 % a year; 0.6.
      { inSample: days(0, 200, 0.2), outOfSample: days(200, 250, 0.03) },
      // In: 10 % in 100 days = 36.5 %; out: -1 % in 50 days = -7.3 %; -0.2.
      { inSample: days(150, 250, 0.1), outOfSample: days(250, 300, -0.01) },
      // In: a loss: no efficiency, left out of the mean.
      { inSample: days(200, 300, -0.05), outOfSample: days(300, 350, 0.04) },
    ]);
    expect(result.folds.map((f) => f.inSampleAnnualReturn)).toEqual([expect.closeTo(0.365, 12), expect.closeTo(0.365, 12), expect.closeTo(-0.1825, 12)]);
    expect(result.folds.map((f) => f.outOfSampleAnnualReturn)).toEqual([expect.closeTo(0.219, 12), expect.closeTo(-0.073, 12), expect.closeTo(0.292, 12)]);
    expect(result.folds.map((f) => f.efficiency)).toEqual([expect.closeTo(0.6, 12), expect.closeTo(-0.2, 12), null]);
    expect(result.efficiency).toBeCloseTo(0.2, 12);
  });

  it('is null when no fold gained in-sample, or there are no folds', () => {
    expect(walkForwardEfficiency([{ inSample: days(0, 10, 0), outOfSample: days(10, 20, 0.1) }]).efficiency).toBeNull();
    expect(walkForwardEfficiency([]).efficiency).toBeNull();
  });

  it('refuses empty windows and impossible returns', () => {
    const ok = days(0, 10, 0.1);
    expect(() => walkForwardEfficiency([{ inSample: days(10, 10, 0.1), outOfSample: ok }])).toThrow(validationError(/folds\.0\.inSample/));
    expect(() => walkForwardEfficiency([{ inSample: ok, outOfSample: days(10, 20, -1.5) }])).toThrow(validationError(/folds\.0\.outOfSample\.totalReturn/));
    expect(() => walkForwardEfficiency([{ inSample: days(0, 10, Number.NaN), outOfSample: ok }])).toThrow(validationError(/totalReturn/));
  });
});
