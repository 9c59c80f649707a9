import { ADX, BollingerBands, CCI, EMA, Highest, Lowest, MACD, OBV, PSAR, ROC, SD, SMA, Stochastic, VWAP } from 'technicalindicators';
import { ATR as TsAtr, DonchianChannels, RSI as TsRsi, StochasticOscillator, SuperTrend } from 'trading-signals';
import { describe, expect, it } from 'vitest';
import { createIndicator } from './create-indicator.js';
import { type IndicatorKind, indicatorOutputs, indicatorSpecProblem } from './indicator-kinds.js';

/*
 * Every kind against third-party implementations (technicalindicators 3.x, "TI"; trading-signals
 * 8.x, "TS") over 10,000 synthetic candles, value by value, wherever the conventions agree. Each
 * comparison also checks that our values are NaN exactly until our documented first value, and
 * counts what it compared, so a comparison that compares nothing fails. Where a library's
 * convention differs (see docs/strategy-api.md), the reference is aligned to ours as stated at
 * each case; the differing conventions themselves are pinned by hand-computed cases in
 * indicators-conventions.test.ts.
 */

const N = 10_000;
const DAY_MS = 86_400_000;

interface Candles {
  time: number[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
}

/** mulberry32: a small seeded generator, the same numbers on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Realistic 15-minute candles: a random walk with changing volatility from 30,000, each candle
 * opening near the previous close, high >= max(open, close), low <= min(open, close), positive
 * volume; the first candle opens at 13:00 UTC, so the first session is a partial day.
 */
function syntheticCandles(n: number, seed: number): Candles {
  const rnd = seeded(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const c: Candles = { time: [], open: [], high: [], low: [], close: [], volume: [] };
  const start = Date.UTC(2024, 2, 1, 13);
  let price = 30_000;
  let vol = 0.003;
  for (let i = 0; i < n; i++) {
    vol = Math.min(0.02, Math.max(0.0005, vol * Math.exp(0.1 * gauss())));
    const open = price * (1 + 0.0002 * gauss());
    const close = open * Math.exp(vol * gauss() + 0.00002);
    const high = Math.max(open, close) * (1 + Math.abs(vol * 0.6 * gauss()));
    const low = Math.min(open, close) * (1 - Math.abs(vol * 0.6 * gauss()));
    c.time.push(start + i * 15 * 60_000);
    c.open.push(open);
    c.high.push(high);
    c.low.push(low);
    c.close.push(close);
    c.volume.push(5 + 200 * rnd() * rnd() + (i % 96 < 8 ? 300 * rnd() : 0));
    price = close;
  }
  return c;
}

const candles = syntheticCandles(N, 20240301);
const hlc = (c: Candles, i: number) => ({ high: c.high[i]!, low: c.low[i]!, close: c.close[i]!, volume: c.volume[i]! });

/** Runs our indicator over the candles: one array per output. */
function ours(kind: IndicatorKind, args: number[], c: Candles = candles): Float64Array[] {
  const spec = { kind, args };
  expect(indicatorSpecProblem(spec)).toBeNull();
  const ind = createIndicator(spec);
  const n = c.close.length;
  const outs = Array.from({ length: indicatorOutputs(kind) }, () => new Float64Array(n));
  const out = new Float64Array(outs.length);
  for (let i = 0; i < n; i++) {
    ind.update(c.high[i]!, c.low[i]!, c.close[i]!, c.volume[i]!, c.time[i]!, out);
    for (let o = 0; o < outs.length; o++) outs[o]![i] = out[o]!;
  }
  return outs;
}

type Ref = readonly (number | null | undefined)[];

/** A library result that leaves out its first values, aligned to the candles (null where it has none). */
function alignEnd(values: readonly (number | undefined)[], n = N): Ref {
  return [...new Array<null>(n - values.length).fill(null), ...values];
}

/** A streaming library's results, one per candle, null until ready. */
function stream<T>(inputs: number, add: (i: number) => T | null): (T | null)[] {
  return Array.from({ length: inputs }, (_, i) => add(i));
}

/** One field of a streaming library's results (null where it had none). */
function pick<T extends object, K extends keyof T>(rows: readonly (T | null)[], key: K): (T[K] | null)[] {
  return rows.map((r) => (r === null ? null : r[key]));
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * Checks `mine` against `ref`: ours is NaN exactly before `readyAt` (our documented first value)
 * and a number from there on; from the library's first value on, every value matches to 1e-9
 * (relative above 1); and exactly `count` values were compared.
 */
function check(label: string, mine: Float64Array, ref: Ref, readyAt: number, count: number): void {
  expect(ref.length, `${label}: reference length`).toBe(mine.length);
  const firstNan = mine.findIndex((x) => !Number.isNaN(x));
  expect(firstNan, `${label}: first value of ours`).toBe(readyAt);
  for (let i = readyAt; i < mine.length; i++) if (Number.isNaN(mine[i]!)) expect.fail(`${label}: NaN at ${i} after its first value`);
  const refFirst = ref.findIndex((x) => x !== null && x !== undefined);
  expect(refFirst, `${label}: the library has values`).toBeGreaterThanOrEqual(readyAt);
  let compared = 0;
  for (let i = refFirst; i < ref.length; i++) {
    const r = ref[i];
    if (typeof r !== 'number' || !Number.isFinite(r)) expect.fail(`${label}: the library has no value at ${i}`);
    if (!close(mine[i]!, r)) expect.fail(`${label}: at ${i} ours ${mine[i]} vs library ${r}`);
    compared++;
  }
  expect(compared, `${label}: values compared`).toBe(count);
}

describe('indicators match third-party implementations over 10,000 candles', () => {
  it('the synthetic candles are realistic', () => {
    const bad = candles.close.filter((_, i) => {
      const [o, h, l, c, v] = [candles.open[i]!, candles.high[i]!, candles.low[i]!, candles.close[i]!, candles.volume[i]!];
      return !(h >= Math.max(o, c) && l <= Math.min(o, c) && l > 0 && v > 0);
    });
    expect(bad).toEqual([]);
    expect(new Set(candles.time.map((t) => Math.floor(t / DAY_MS))).size).toBeGreaterThan(100);
  });

  it.each([[1], [20], [200]])('sma(%i) = TI SMA', (p) => {
    const [v] = ours('sma', [p]);
    check('sma', v!, alignEnd(SMA.calculate({ period: p, values: candles.close })), p - 1, N - p + 1);
  });

  it.each([[1], [20], [200]])('ema(%i) = TI EMA (both seeded with the SMA)', (p) => {
    const [v] = ours('ema', [p]);
    check('ema', v!, alignEnd(EMA.calculate({ period: p, values: candles.close })), p - 1, N - p + 1);
  });

  it.each([[2], [14]])('rsi(%i) = TS RSI (Wilder; TI rounds its RSI to 2 decimals, so it is not used)', (p) => {
    const [v] = ours('rsi', [p]);
    const ts = new TsRsi(p);
    const ref = stream(N, (i) => ts.add(candles.close[i]!));
    check('rsi', v!, ref, p, N - p);
  });

  it.each([[1], [14]])('atr(%i) = TS ATR (first true range high - low, Wilder smoothing seeded with the mean)', (p) => {
    const [v] = ours('atr', [p]);
    const ts = new TsAtr(p);
    const ref = stream(N, (i) => ts.add(hlc(candles, i)));
    check('atr', v!, ref, p - 1, N - p + 1);
  });

  it.each([
    [20, 2],
    [50, 2.5],
  ])('bollinger(%i, %d) = TI BollingerBands (population deviation)', (p, m) => {
    const [upper, middle, lower] = ours('bollinger', [p, m]);
    const ref = BollingerBands.calculate({ period: p, stdDev: m, values: candles.close });
    check('upper', upper!, alignEnd(ref.map((r) => r.upper)), p - 1, N - p + 1);
    check('middle', middle!, alignEnd(ref.map((r) => r.middle)), p - 1, N - p + 1);
    check('lower', lower!, alignEnd(ref.map((r) => r.lower)), p - 1, N - p + 1);
  });

  it.each([
    [12, 26, 9],
    [5, 35, 5],
    [3, 10, 1],
  ])('macd(%i, %i, %i) = TI MACD with EMA oscillator and signal', (fast, slow, signal) => {
    const [line, sig, hist] = ours('macd', [fast, slow, signal]);
    const ref = MACD.calculate({
      values: candles.close,
      fastPeriod: fast,
      slowPeriod: slow,
      signalPeriod: signal,
      SimpleMAOscillator: false,
      SimpleMASignal: false,
    });
    check('macd', line!, alignEnd(ref.map((r) => r.MACD)), slow - 1, N - slow + 1);
    const signalAt = slow + signal - 2;
    check('signal', sig!, alignEnd(ref.map((r) => r.signal)), signalAt, N - signalAt);
    check('histogram', hist!, alignEnd(ref.map((r) => r.histogram)), signalAt, N - signalAt);
  });

  it.each([
    [14, 3, 3],
    [5, 5, 1],
    [21, 1, 3],
  ])('stochastic(%i, %i, %i) = TS StochasticOscillator (slow: %K smoothed)', (kp, ks, dp) => {
    const [k, d] = ours('stochastic', [kp, ks, dp]);
    const ts = new StochasticOscillator({ kPeriod: kp, kSlowingPeriod: ks, dPeriod: dp });
    const ref = stream(N, (i) => ts.add(hlc(candles, i)));
    // TS gives both lines from the first %D; our %K comes dPeriod - 1 candles earlier.
    const kAt = kp + ks - 2;
    const dAt = kAt + dp - 1;
    const refK = pick(ref, 'stochK');
    check('k', k!, refK, kAt, N - dAt);
    check('d', d!, pick(ref, 'stochD'), dAt, N - dAt);
  });

  it('stochastic(14, 1, 3) = TI Stochastic (the fast stochastic)', () => {
    const [k, d] = ours('stochastic', [14, 1, 3]);
    const ref = Stochastic.calculate({ high: candles.high, low: candles.low, close: candles.close, period: 14, signalPeriod: 3 });
    check('k', k!, alignEnd(ref.map((r) => r.k)), 13, N - 13);
    check('d', d!, alignEnd(ref.map((r) => r.d)), 15, N - 15);
  });

  it.each([[14], [7], [30]])("adx(%i) = TI ADX (Wilder's DMI; period 1 is not compared: TI's DX is NaN when both DIs are 0)", (p) => {
    const [adx, plusDi, minusDi] = ours('adx', [p]);
    const ref = ADX.calculate({ high: candles.high, low: candles.low, close: candles.close, period: p });
    // TI gives the DIs only from its first ADX; ours come on candle period + 1.
    const adxAt = 2 * p - 1;
    check('adx', adx!, alignEnd(ref.map((r) => r.adx)), adxAt, N - adxAt);
    check('plusDi', plusDi!, alignEnd(ref.map((r) => r.pdi)), p, N - adxAt);
    check('minusDi', minusDi!, alignEnd(ref.map((r) => r.mdi)), p, N - adxAt);
  });

  it.each([[20], [128], [129], [1000]])('cci(%i) = TI CCI (direct sum up to period 128, order-statistics tree above)', (p) => {
    const [v] = ours('cci', [p]);
    const ref = CCI.calculate({ high: candles.high, low: candles.low, close: candles.close, period: p });
    check('cci', v!, alignEnd(ref), p - 1, N - p + 1);
  });

  it('vwap() = TI VWAP run afresh on each UTC day (TI never resets)', () => {
    const [v] = ours('vwap', []);
    const ref: number[] = [];
    let from = 0;
    for (let i = 1; i <= N; i++) {
      if (i < N && Math.floor(candles.time[i]! / DAY_MS) === Math.floor(candles.time[from]! / DAY_MS)) continue;
      const day = (xs: number[]) => xs.slice(from, i);
      ref.push(...VWAP.calculate({ high: day(candles.high), low: day(candles.low), close: day(candles.close), volume: day(candles.volume) }));
      from = i;
    }
    check('vwap', v!, ref, 0, N);
    // The reset matters: a run over all candles without it differs.
    const cumulative = VWAP.calculate({ high: candles.high, low: candles.low, close: candles.close, volume: candles.volume });
    expect(close(v![N - 1]!, cumulative[N - 1]!)).toBe(false);
  });

  it('obv() = TI OBV, one candle later: ours is 0 on the first candle, where TI starts on the second', () => {
    const [v] = ours('obv', []);
    expect(v![0]).toBe(0);
    const ref = OBV.calculate({ close: candles.close, volume: candles.volume });
    expect(ref).toHaveLength(N - 1);
    check('obv', v!, [0, ...ref], 0, N);
  });

  it.each([[1], [20], [55]])('donchian(%i) = TS DonchianChannels; highest, lowest = TI Highest, Lowest', (p) => {
    const [upper, middle, lower] = ours('donchian', [p]);
    const ts = new DonchianChannels(p);
    const ref = stream(N, (i) => ts.add(hlc(candles, i)));
    check('upper', upper!, pick(ref, 'upper'), p - 1, N - p + 1);
    check('middle', middle!, pick(ref, 'middle'), p - 1, N - p + 1);
    check('lower', lower!, pick(ref, 'lower'), p - 1, N - p + 1);
    const [highest] = ours('highest', [p]);
    const [lowest] = ours('lowest', [p]);
    check('highest', highest!, alignEnd(Highest.calculate({ period: p, values: candles.high })), p - 1, N - p + 1);
    check('lowest', lowest!, alignEnd(Lowest.calculate({ period: p, values: candles.low })), p - 1, N - p + 1);
  });

  it.each([[2], [20], [500]])('stddev(%i) = TI SD (population)', (p) => {
    const [v] = ours('stddev', [p]);
    check('stddev', v!, alignEnd(SD.calculate({ period: p, values: candles.close })), p - 1, N - p + 1);
  });

  it.each([[1], [10], [100]])('roc(%i) = TI ROC', (p) => {
    const [v] = ours('roc', [p]);
    check('roc', v!, alignEnd(ROC.calculate({ period: p, values: candles.close })), p, N - p);
  });

  it.each([
    [20, 2, 10],
    [10, 1.5, 30],
  ])('keltner(%i, %d, %i) = TI EMA middle plus and minus the multiplier times TS ATR', (p, m, ap) => {
    // No library has both conventions at once: TI's Keltner skips the first true range, TS's seeds its EMA with the first close.
    const [upper, middle, lower] = ours('keltner', [p, m, ap]);
    const ema = alignEnd(EMA.calculate({ period: p, values: candles.close }));
    const tsAtr = new TsAtr(ap);
    const atr = stream(N, (i) => tsAtr.add(hlc(candles, i)));
    const at = Math.max(p, ap) - 1;
    const band = (sign: number) => ema.map((e, i) => (i < at ? null : e! + sign * m * atr[i]!));
    check('upper', upper!, band(1), at, N - at);
    check('middle', middle!, band(0), at, N - at);
    check('lower', lower!, band(-1), at, N - at);
  });

  it.each([
    [0.02, 0.2],
    [0.01, 0.1],
    [0.05, 0.5],
  ])('psar(%d, %d) = TI PSAR once the first trend agrees (TI always starts up; a down start is TI on the mirrored candles)', (step, max) => {
    // Mirroring prices (x -> K - x, highs and lows swapped) turns an up start into a down start,
    // so one of the two series starts each way and both of our starts are checked.
    const K = 2 * Math.max(...candles.high);
    const mirrored: Candles = {
      time: candles.time,
      open: candles.open.map((x) => K - x),
      high: candles.low.map((x) => K - x),
      low: candles.high.map((x) => K - x),
      close: candles.close.map((x) => K - x),
      volume: candles.volume,
    };
    const ti = (c: Candles) => PSAR.calculate({ high: c.high, low: c.low, step, max });
    const starts: boolean[] = [];
    for (const [series, other] of [
      [candles, mirrored],
      [mirrored, candles],
    ] as const) {
      const [v] = ours('psar', [step, max], series);
      const up = series.close[1]! >= series.close[0]!;
      starts.push(up);
      const ref: (number | null)[] = up ? ti(series) : ti(other).map((x) => K - x);
      ref[0] = null; // ours has no value on the first candle
      check('psar', v!, ref, 1, N - 1);
      let reversals = 0;
      for (let i = 2; i < N; i++) if (series.close[i]! > v![i]! !== series.close[i - 1]! > v![i - 1]!) reversals++;
      expect(reversals).toBeGreaterThan(200);
    }
    expect(starts.sort()).toEqual([false, true]);
  });

  it.each([
    [10, 3],
    [7, 2.5],
    [1, 1],
  ])('supertrend(%i, %d) = TS SuperTrend', (p, m) => {
    const [value, direction] = ours('supertrend', [p, m]);
    const ts = new SuperTrend({ interval: p, multiplier: m });
    const ref = stream(N, (i) => ts.add(hlc(candles, i)));
    check('value', value!, pick(ref, 'supertrend'), p - 1, N - p + 1);
    const dirs = ref.map((r) => (r === null ? null : r.trend === 'BULLISH' ? 1 : -1));
    check('direction', direction!, dirs, p - 1, N - p + 1);
    let flips = 0;
    for (let i = p; i < N; i++) if (direction![i] !== direction![i - 1]) flips++;
    expect(flips).toBeGreaterThan(50);
  });
});
