import { describe, expect, it } from 'vitest';
import { createIndicator } from './create-indicator.js';
import { INDICATOR_DEFS, INDICATOR_KINDS, type IndicatorKind, type IndicatorSpec, indicatorOutputs, indicatorSpecProblem } from './indicator-kinds.js';

/** Candles as columns. */
interface Rows {
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
  time: number[];
}

/** A small deterministic wave of 15-minute candles around 100 (no randomness needed here). */
function wave(n: number): Rows {
  const r: Rows = { high: [], low: [], close: [], volume: [], time: [] };
  for (let i = 0; i < n; i++) {
    const c = 100 + 10 * Math.sin(i / 7) + 3 * Math.sin(i * 1.3);
    r.close.push(c);
    r.high.push(c + 1 + Math.abs(Math.sin(i * 0.7)));
    r.low.push(c - 1 - Math.abs(Math.cos(i * 0.9)));
    r.volume.push(10 + (i % 5));
    r.time.push(Date.UTC(2024, 0, 1) + i * 15 * 60_000);
  }
  return r;
}

function flat(n: number, price: number): Rows {
  return {
    high: new Array(n).fill(price),
    low: new Array(n).fill(price),
    close: new Array(n).fill(price),
    volume: new Array(n).fill(1),
    time: Array.from({ length: n }, (_, i) => i * 60_000),
  };
}

function run(spec: IndicatorSpec, r: Rows): number[][] {
  expect(indicatorSpecProblem(spec)).toBeNull();
  const ind = createIndicator(spec);
  expect(ind.outputs).toBe(indicatorOutputs(spec.kind));
  const outs = Array.from({ length: ind.outputs }, () => [] as number[]);
  const out = new Float64Array(ind.outputs);
  for (let i = 0; i < r.close.length; i++) {
    ind.update(r.high[i]!, r.low[i]!, r.close[i]!, r.volume[i]!, r.time[i]!, out);
    outs.forEach((o, k) => o.push(out[k]!));
  }
  return outs;
}

const defaults = (kind: IndicatorKind, fallback = 20) => INDICATOR_DEFS[kind].params.map((p) => p.default ?? fallback);

/** Our documented first value of each output (0-based candle index) at the default arguments (sma and ema at 20). */
const FIRST_VALUE: Record<IndicatorKind, number[]> = {
  sma: [19],
  ema: [19],
  rsi: [14],
  atr: [13],
  bollinger: [19, 19, 19],
  macd: [25, 33, 33],
  stochastic: [15, 17],
  adx: [27, 14, 14],
  cci: [19],
  vwap: [0],
  obv: [0],
  donchian: [19, 19, 19],
  highest: [19],
  lowest: [19],
  stddev: [19],
  roc: [10],
  keltner: [19, 19, 19],
  psar: [1],
  supertrend: [9, 9],
};

describe('indicator edge cases', () => {
  it.each(INDICATOR_KINDS.map((k) => [k]))('%s is NaN until its first value, then always a number', (kind) => {
    const outs = run({ kind, args: defaults(kind) }, wave(300));
    expect(outs.map((o) => o.findIndex((x) => !Number.isNaN(x)))).toEqual(FIRST_VALUE[kind]);
    for (const o of outs) expect(o.slice(o.findIndex((x) => !Number.isNaN(x))).every(Number.isFinite)).toBe(true);
  });

  it('period 1', () => {
    const r = wave(50);
    const at = (spec: IndicatorSpec) => run(spec, r);
    const prevClose = (i: number) => r.close[i - 1]!;
    const tr = (i: number) =>
      i === 0 ? r.high[0]! - r.low[0]! : Math.max(r.high[i]! - r.low[i]!, Math.abs(r.high[i]! - prevClose(i)), Math.abs(r.low[i]! - prevClose(i)));
    expect(at({ kind: 'sma', args: [1] })[0]).toEqual(r.close);
    expect(at({ kind: 'ema', args: [1] })[0]).toEqual(r.close);
    for (const band of at({ kind: 'bollinger', args: [1, 2] })) expect(band).toEqual(r.close);
    expect(at({ kind: 'stddev', args: [1] })[0]).toEqual(r.close.map(() => 0));
    expect(at({ kind: 'highest', args: [1] })[0]).toEqual(r.high);
    expect(at({ kind: 'lowest', args: [1] })[0]).toEqual(r.low);
    const [upper, middle, lower] = at({ kind: 'donchian', args: [1] });
    expect(upper).toEqual(r.high);
    expect(lower).toEqual(r.low);
    expect(middle).toEqual(r.high.map((h, i) => (h + r.low[i]!) / 2));
    expect(at({ kind: 'cci', args: [1] })[0]).toEqual(r.close.map(() => 0));
    expect(at({ kind: 'atr', args: [1] })[0]).toEqual(r.close.map((_, i) => tr(i)));
    const rsi = at({ kind: 'rsi', args: [1] })[0]!;
    expect(rsi.slice(1)).toEqual(r.close.slice(1).map((c, i) => (c > r.close[i]! ? 100 : c < r.close[i]! ? 0 : 50)));
    const roc = at({ kind: 'roc', args: [1] })[0]!;
    r.close.slice(1).forEach((c, i) => expect(roc[i + 1]).toBeCloseTo((100 * (c - r.close[i]!)) / r.close[i]!, 10));
    const [k, d] = at({ kind: 'stochastic', args: [1, 1, 1] });
    r.close.forEach((c, i) => expect(k![i]).toBeCloseTo((100 * (c - r.low[i]!)) / (r.high[i]! - r.low[i]!), 10));
    expect(d).toEqual(k);
    const [line, signal, hist] = at({ kind: 'macd', args: [1, 2, 1] });
    expect(signal!.slice(1)).toEqual(line!.slice(1));
    expect(hist!.slice(1).every((x) => x === 0)).toBe(true);
    const [kUpper, kMiddle, kLower] = at({ kind: 'keltner', args: [1, 2, 1] });
    expect(kMiddle).toEqual(r.close);
    r.close.forEach((c, i) => {
      expect(kUpper![i]).toBeCloseTo(c + 2 * tr(i), 10);
      expect(kLower![i]).toBeCloseTo(c - 2 * tr(i), 10);
    });
    const [adx, plusDi, minusDi] = at({ kind: 'adx', args: [1] });
    for (let i = 1; i < r.close.length; i++) {
      const up = r.high[i]! - r.high[i - 1]!;
      const down = r.low[i - 1]! - r.low[i]!;
      const pdi = (100 * (up > down && up > 0 ? up : 0)) / tr(i);
      const mdi = (100 * (down > up && down > 0 ? down : 0)) / tr(i);
      expect(plusDi![i]).toBeCloseTo(pdi, 10);
      expect(minusDi![i]).toBeCloseTo(mdi, 10);
      expect(adx![i]).toBeCloseTo(pdi + mdi === 0 ? 0 : (100 * Math.abs(pdi - mdi)) / (pdi + mdi), 10);
    }
    const [st, dir] = at({ kind: 'supertrend', args: [1, 3] });
    expect(st!.every(Number.isFinite)).toBe(true);
    expect(dir!.every((x) => x === 1 || x === -1)).toBe(true);
  });

  it('flat prices from the start: no deviation, no direction, mid-scale oscillators', () => {
    const f = flat(200, 250.1);
    const last = (spec: IndicatorSpec) => run(spec, f).map((o) => o.at(-1));
    expect(last({ kind: 'sma', args: [20] })).toEqual([250.1]);
    expect(last({ kind: 'ema', args: [20] })[0]).toBeCloseTo(250.1, 10);
    expect(last({ kind: 'rsi', args: [14] })).toEqual([50]);
    expect(last({ kind: 'atr', args: [14] })).toEqual([0]);
    expect(last({ kind: 'bollinger', args: [20, 2] })).toEqual([250.1, 250.1, 250.1]);
    expect(last({ kind: 'stddev', args: [20] })).toEqual([0]);
    expect(last({ kind: 'stochastic', args: [14, 3, 3] })).toEqual([50, 50]);
    expect(last({ kind: 'adx', args: [14] })).toEqual([0, 0, 0]);
    expect(last({ kind: 'cci', args: [20] })).toEqual([0]);
    expect(last({ kind: 'cci', args: [150] })).toEqual([0]);
    expect(last({ kind: 'vwap', args: [] })[0]).toBeCloseTo(250.1, 10);
    expect(last({ kind: 'obv', args: [] })).toEqual([0]);
    expect(last({ kind: 'donchian', args: [20] })).toEqual([250.1, 250.1, 250.1]);
    expect(last({ kind: 'roc', args: [10] })).toEqual([0]);
    expect(last({ kind: 'psar', args: [0.02, 0.2] })).toEqual([250.1]);
    expect(last({ kind: 'supertrend', args: [10, 3] })).toEqual([250.1, -1]);
    const [line, signal, hist] = last({ kind: 'macd', args: [12, 26, 9] });
    for (const x of [line, signal, hist]) expect(Math.abs(x!)).toBeLessThan(1e-9);
    const keltner = last({ kind: 'keltner', args: [20, 2, 10] });
    for (const x of keltner) expect(x).toBeCloseTo(250.1, 10);
  });

  it('flat prices after moving ones: exactly no deviation once the window is flat', () => {
    const moving = wave(500);
    const f = flat(200, 123.456);
    const r: Rows = {
      high: [...moving.high, ...f.high],
      low: [...moving.low, ...f.low],
      close: [...moving.close, ...f.close],
      volume: [...moving.volume, ...f.volume],
      time: [...moving.time, ...f.time.map((t) => t + moving.time.at(-1)! + 60_000)],
    };
    const last = (spec: IndicatorSpec) => run(spec, r).map((o) => o.at(-1));
    expect(last({ kind: 'sma', args: [20] })).toEqual([123.456]);
    expect(last({ kind: 'stddev', args: [20] })).toEqual([0]);
    expect(last({ kind: 'stddev', args: [100] })).toEqual([0]);
    expect(last({ kind: 'bollinger', args: [20, 2] })).toEqual([123.456, 123.456, 123.456]);
    expect(last({ kind: 'cci', args: [20] })).toEqual([0]);
    expect(last({ kind: 'cci', args: [150] })).toEqual([0]);
    expect(last({ kind: 'stochastic', args: [14, 3, 3] })).toEqual([50, 50]);
    expect(last({ kind: 'donchian', args: [20] })).toEqual([123.456, 123.456, 123.456]);
    expect(last({ kind: 'roc', args: [10] })).toEqual([0]);
  });

  it('zero volume: only vwap and obv read volume, and neither moves on a candle without it', () => {
    const r = wave(300);
    const noVolume = { ...r, volume: r.volume.map(() => 0) };
    for (const kind of INDICATOR_KINDS) {
      const spec = { kind, args: defaults(kind) };
      if (kind === 'vwap') expect(run(spec, noVolume)[0]!.every(Number.isNaN)).toBe(true);
      else if (kind === 'obv') expect(run(spec, noVolume)[0]!.every((x) => x === 0)).toBe(true);
      else expect(run(spec, noVolume), kind).toEqual(run(spec, r));
    }
    const someZero = { ...r, volume: r.volume.map((v, i) => (i % 3 === 0 ? 0 : v)) };
    const [vwap] = run({ kind: 'vwap', args: [] }, someZero);
    const [obv] = run({ kind: 'obv', args: [] }, someZero);
    for (let i = 3; i < 300; i += 3) {
      // 15-minute candles from midnight: every 96th starts a session, where no volume means no value yet
      expect(vwap![i]).toBe(i % 96 === 0 ? Number.NaN : vwap![i - 1]);
      expect(obv![i]).toBe(obv![i - 1]);
    }
  });

  it('the same candles give the same values in a fresh indicator (no state shared between instances)', () => {
    const r = wave(200);
    for (const kind of INDICATOR_KINDS) {
      const spec = { kind, args: defaults(kind) };
      const a = createIndicator(spec);
      const b = createIndicator(spec);
      const outA = new Float64Array(a.outputs);
      const outB = new Float64Array(b.outputs);
      for (let i = 0; i < 200; i++) {
        a.update(r.high[i]!, r.low[i]!, r.close[i]!, r.volume[i]!, r.time[i]!, outA);
        if (i >= 100) b.update(r.high[i - 100]!, r.low[i - 100]!, r.close[i - 100]!, r.volume[i - 100]!, r.time[i - 100]!, outB);
      }
      const again = run(spec, wave(100)).map((o) => o.at(-1));
      expect(Array.from(outB), kind).toEqual(again);
    }
  });
});
