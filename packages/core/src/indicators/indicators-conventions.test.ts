import { describe, expect, it } from 'vitest';
import { createIndicator } from './create-indicator.js';
import { type IndicatorSpec, indicatorOutputs } from './indicator-kinds.js';

/*
 * Our conventions where common libraries differ, pinned on small hand-computed cases (the
 * arithmetic is in the comments). indicators-reference.test.ts checks everything else against
 * the libraries themselves.
 */

type Row = [high: number, low: number, close: number, volume?: number, time?: number];

/** Runs an indicator over rows and returns one array per output. */
function run(spec: IndicatorSpec, rows: Row[]): number[][] {
  const ind = createIndicator(spec);
  const outs = Array.from({ length: indicatorOutputs(spec.kind) }, () => [] as number[]);
  const out = new Float64Array(outs.length);
  for (const [h, l, c, v = 1, t = 0] of rows) {
    ind.update(h, l, c, v, t, out);
    outs.forEach((o, i) => o.push(out[i]!));
  }
  return outs;
}
const closes = (xs: number[]): Row[] => xs.map((c) => [c, c, c]);

function expectClose(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((e, i) => {
    if (Number.isNaN(e)) expect(actual[i], `at ${i}`).toBeNaN();
    else expect(actual[i], `at ${i}`).toBeCloseTo(e, 10);
  });
}

describe('indicator conventions, hand-computed', () => {
  it('MACD: EMAs seeded with their SMA, the signal seeded with the mean of the first MACD values', () => {
    // EMA(2), alpha 2/3: seed (1 + 2) / 2 = 1.5; 1.5 + 2/3 * 1.5 = 2.5; 2.5 + 2/3 * 1.5 = 3.5; 3.5 + 2/3 * 4.5 = 6.5
    // EMA(3), alpha 1/2: seed 2; 3; 5.5. MACD from candle 3: 0.5, 0.5, 1
    // signal EMA(2): seed (0.5 + 0.5) / 2 = 0.5, then 0.5 + 2/3 * 0.5 = 0.8333; histogram 0, 0.1667
    const [line, signal, hist] = run({ kind: 'macd', args: [2, 3, 2] }, closes([1, 2, 3, 4, 8]));
    expectClose(line!, [NaN, NaN, 0.5, 0.5, 1]);
    expectClose(signal!, [NaN, NaN, NaN, 0.5, 0.5 + 1 / 3]);
    expectClose(hist!, [NaN, NaN, NaN, 0, 0.5 - 1 / 3]);
  });

  it('stochastic: %K smoothed, then %D; a flat range gives 50 (technicalindicators and trading-signals give 0)', () => {
    const rows: Row[] = [
      [10, 8, 9],
      [12, 9, 11], // range 8..12: raw %K 100 * 3 / 4 = 75
      [12, 10, 10], // range 9..12: 100 * 1 / 3 = 33.33; %K (75 + 33.33) / 2 = 54.17
      [11, 10, 11], // range 10..12: 100 * 1 / 2 = 50; %K (33.33 + 50) / 2 = 41.67; %D (54.17 + 41.67) / 2 = 47.92
      [10, 10, 10], // range 10..11: 0; %K 25; %D 33.33
      [10, 10, 10], // range 10..10, flat: 50; %K 25; %D 25
      [10, 10, 10], // flat: 50; %K 50; %D 37.5
    ];
    const [k, d] = run({ kind: 'stochastic', args: [2, 2, 2] }, rows);
    expectClose(k!, [NaN, NaN, (75 + 100 / 3) / 2, (100 / 3 + 50) / 2, 25, 25, 50]);
    expectClose(d!, [NaN, NaN, NaN, (125 / 3 + 325 / 6) / 2, (125 / 3 + 25) / 2, 25, 37.5]);
  });

  it("ADX: Wilder's smoothing from the second candle, DIs first, ADX seeded with the mean of the first DX values", () => {
    const rows: Row[] = [
      [10, 8, 9],
      [11, 9, 10.5], // +DM 1, -DM 0, TR 2
      [12, 10, 11], // +DM 1, -DM 0, TR 2 -> sTR 2, s+DM 1, s-DM 0: +DI 50, -DI 0, DX 100
      [11.5, 9, 9.5], // +DM 0, -DM 1, TR 2.5 -> sTR 2.25, s+DM 0.5, s-DM 0.5: DIs 22.2, DX 0 -> ADX (100 + 0) / 2 = 50
      [11, 8, 8.5], // -DM 1, TR 3 -> sTR 2.625, s+DM 0.25, s-DM 0.75: DX 50 -> ADX (50 + 50) / 2 = 50
    ];
    const [adx, plusDi, minusDi] = run({ kind: 'adx', args: [2] }, rows);
    expectClose(adx!, [NaN, NaN, NaN, 50, 50]);
    expectClose(plusDi!, [NaN, NaN, 50, 100 * (0.5 / 2.25), 100 * (0.25 / 2.625)]);
    expectClose(minusDi!, [NaN, NaN, 0, 100 * (0.5 / 2.25), 100 * (0.75 / 2.625)]);
  });

  it('ADX: no directional movement gives DX 0, and no range at all DIs of 0 (technicalindicators gives NaN)', () => {
    const [adx, plusDi, minusDi] = run({ kind: 'adx', args: [2] }, closes([5, 5, 5, 5, 5, 5]));
    expectClose(adx!, [NaN, NaN, NaN, 0, 0, 0]);
    expectClose(plusDi!, [NaN, NaN, 0, 0, 0, 0]);
    expectClose(minusDi!, [NaN, NaN, 0, 0, 0, 0]);
    // An inside candle after a range: TR > 0 but no DM at all
    const [adx1] = run({ kind: 'adx', args: [1] }, [
      [10, 8, 9],
      [9.5, 8.5, 9],
    ]);
    expect(adx1![1]).toBe(0);
  });

  it('CCI: (tp - SMA) / (0.015 * mean deviation); 0 when every typical price is the same', () => {
    // tps 1, 2, 6: mean 3, mean deviation (2 + 1 + 3) / 3 = 2 -> (6 - 3) / 0.03 = 100
    expectClose(run({ kind: 'cci', args: [3] }, closes([1, 2, 6]))[0]!, [NaN, NaN, 100]);
    // typical price (h + l + c) / 3: (12 + 6 + 9) / 3 = 9
    expectClose(
      run({ kind: 'cci', args: [2] }, [
        [3, 3, 3],
        [12, 6, 9],
      ])[0]!,
      [NaN, (9 - 6) / (0.015 * 3)],
    );
    expect(run({ kind: 'cci', args: [3] }, closes([0.1, 0.1, 0.1, 0.1]))[0]).toEqual([NaN, NaN, 0, 0]);
  });

  it('VWAP: typical price weighted by volume, from the first candle of each UTC day', () => {
    const day = Date.UTC(2024, 0, 2);
    const [v] = run({ kind: 'vwap', args: [] }, [
      [12, 9, 9, 2, day - 30 * 60_000], // 23:30: tp 10 -> 10
      [15, 12, 12, 1, day - 15 * 60_000], // 23:45: tp 13 -> (20 + 13) / 3 = 11
      [22, 19, 19, 4, day], // 00:00, a new session: tp 20 -> 20
      [31, 28, 28, 1, day + 15 * 60_000], // tp 29 -> (80 + 29) / 5 = 21.8
    ]);
    expectClose(v!, [10, 11, 20, 21.8]);
  });

  it('VWAP: a candle without volume changes nothing, and a session without volume yet has no value', () => {
    const day = Date.UTC(2024, 0, 2);
    const [v] = run({ kind: 'vwap', args: [] }, [
      [12, 9, 9, 2, day - 60_000], // tp 10 -> 10
      [50, 50, 50, 0, day - 30_000], // no volume: still 10
      [22, 19, 19, 0, day], // a new session, no volume yet: NaN
      [31, 28, 28, 1, day + 60_000], // tp 29 -> 29
      [40, 40, 40, 0, day + 120_000], // still 29
    ]);
    expectClose(v!, [10, 10, NaN, 29, 29]);
  });

  it('OBV: 0 on the first candle, then plus or minus the volume by the close (technicalindicators starts on the second)', () => {
    const [v] = run({ kind: 'obv', args: [] }, [
      [10, 10, 10, 5],
      [11, 11, 11, 7], // up: +7
      [11, 11, 11, 3], // unchanged close: 7
      [9, 9, 9, 2], // down: -2
    ]);
    expect(v).toEqual([0, 7, 7, 5]);
  });

  it('ROC: against the close period candles ago; NaN when that close is 0', () => {
    expectClose(run({ kind: 'roc', args: [1] }, closes([10, 11, 12.1]))[0]!, [NaN, 10, 10]);
    expectClose(run({ kind: 'roc', args: [2] }, closes([0, 1, 2, 3]))[0]!, [NaN, NaN, NaN, 200]);
  });

  it('PSAR: an up start (second close at or above the first) from the first candle: SAR its low, EP its high', () => {
    const rows: Row[] = [
      [10, 8, 9],
      [12, 9, 11], // up. SAR 8 + 0.02 * (10 - 8) = 8.04, no higher than the first low: 8. New high: EP 12, AF 0.04
      [13, 11, 12.5], // 8 + 0.04 * (12 - 8) = 8.16, no higher than the low two candles back: 8. EP 13, AF 0.06
      [14, 12.5, 13.5], // 8 + 0.06 * (13 - 8) = 8.3 (below 9 and 11). EP 14, AF 0.08
      [13, 8, 8.5], // 8.3 + 0.08 * (14 - 8.3) = 8.756; the low 8 goes through: down, the value is the EP 14; EP 8, AF 0.02
      [9, 7, 7.5], // 14 + 0.02 * (8 - 14) = 13.88, no lower than the highs of the two candles before (13, 14): 14
    ];
    expectClose(run({ kind: 'psar', args: [0.02, 0.2] }, rows)[0]!, [NaN, 8, 8, 8.3, 14, 14]);
  });

  it('PSAR: a down start (second close below the first): SAR the first high, EP its low', () => {
    const rows: Row[] = [
      [10, 8, 9],
      [9.5, 7, 7.5], // down. 10 + 0.02 * (8 - 10) = 9.96, no lower than the first high: 10. EP 7, AF 0.04
      [8, 6, 6.5], // 10 + 0.04 * (7 - 10) = 9.88, no lower than 9.5 and 10: 10. EP 6, AF 0.06
      [7, 5, 5.5], // 10 + 0.06 * (6 - 10) = 9.76 (above 8 and 9.5)
    ];
    expectClose(run({ kind: 'psar', args: [0.02, 0.2] }, rows)[0]!, [NaN, 10, 10, 9.76]);
  });

  it('PSAR: a low that touches the SAR does not reverse the trend', () => {
    const rows: Row[] = [
      [10, 8, 9],
      [12, 9, 11],
      [13, 11, 12.5],
      [14, 8.3, 13.5], // the SAR is 8.3 (as above) and the low touches it: still up. EP 14, AF 0.08
      [14.5, 13, 14], // 8.3 + 0.08 * (14 - 8.3) = 8.756, no higher than the low before: 8.3
    ];
    expectClose(run({ kind: 'psar', args: [0.02, 0.2] }, rows)[0]!, [NaN, 8, 8, 8.3, 8.3]);
  });

  it('PSAR: the AF grows by step up to max, and starts at max when step is larger', () => {
    const rows: Row[] = [
      [10, 0, 5],
      [11, 5, 8], // up; 0 + 0.1 * (10 - 0) = 1, no higher than the first low: 0. EP 11, AF 0.2
      [12, 6, 9], // 0 + 0.2 * 11 = 2.2, no higher than 0 (two candles back): 0. EP 12, AF 0.3 -> capped at 0.25
      [13, 7, 10], // 0 + 0.25 * 12 = 3 (below 5 and 6; 3.6 without the cap). EP 13, AF 0.25
      [14, 8, 11], // 3 + 0.25 * (13 - 3) = 5.5 (below 6 and 7)
    ];
    expectClose(run({ kind: 'psar', args: [0.1, 0.25] }, rows)[0]!, [NaN, 0, 0, 3, 5.5]);
    // step 0.5 above max 0.2: the AF is 0.2 throughout
    // 0 + 0.2 * 10 -> 0; 0 + 0.2 * 11 -> 0; 0 + 0.2 * 12 = 2.4; 2.4 + 0.2 * (13 - 2.4) = 4.52
    expectClose(run({ kind: 'psar', args: [0.5, 0.2] }, rows)[0]!, [NaN, 0, 0, 2.4, 4.52]);
  });

  it('supertrend: starts down unless the close is above the upper band; bands ratchet; direction +1 up, -1 down', () => {
    const rows: Row[] = [
      [10, 8, 9], // ATR(1) 2, hl2 9: bands 11 and 7; close 9 is not above 11: down, value 11
      [12, 10, 11.5], // TR 3, hl2 11: basic 14 and 8; upper stays 11 (14 is higher); lower 8. Close 11.5 > 11: up, value 8
      [11.8, 10.5, 10.6], // TR 1.3, hl2 11.15: basic 12.45, 9.85; the previous close was above 11, so upper 12.45; lower 9.85. Still up
      [10, 9, 9.2], // TR 1.6, hl2 9.5: basic 11.1, 7.9; upper 11.1; lower stays 9.85. Close 9.2 < 9.85: down, value 11.1
    ];
    const [value, direction] = run({ kind: 'supertrend', args: [1, 1] }, rows);
    expectClose(value!, [11, 8, 9.85, 11.1]);
    expect(direction).toEqual([-1, 1, 1, -1]);
  });
});
