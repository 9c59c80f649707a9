import { TIMEFRAME_MS, type CandleSeries, type MarketData, type TimeframeName } from '../ports/market-data.js';
import { allocateSeries } from './candle-series.js';
import { resolveCandleRange } from './candle-range.js';
import { resolveFundingRange } from './funding-range.js';
import { generateSyntheticFunding } from './synthetic-funding.js';

/*
 * Deterministic synthetic candles, so a server runs real backtests offline with no set-up.
 *
 * The log price is a pure function of the minute since the epoch: a sum of 20 octaves of
 * "value noise" (random values from a hash of (symbol seed, octave, lattice index), linearly
 * interpolated), octave k having lattice spacing 2^k minutes and amplitude proportional to
 * sqrt(2^k). That spectrum behaves like a geometric random walk: moves over a horizon h grow
 * like sqrt(h), and within a slow octave's cell the price drifts linearly, giving trends of days
 * to months for moving averages to follow. The fine octaves (up to ~17 hours) are scaled by a
 * slowly changing volatility factor, so calm and wild regimes alternate.
 *
 * Because every value comes from hashes of absolute indices, candle i of any request is the
 * same number whatever range it was requested in, and a candle's open and close are the same
 * across timeframes (the 1h close at 10:00 is the 1m close at 09:59). High, low and volume come
 * from a hash of (seed, timeframe, candle index).
 *
 * Speed: a request sweeps the candle boundaries in order and keeps, per octave, the two lattice
 * values around the current point, so each boundary costs about one multiply-add per octave and
 * a hash only when an octave crosses into a new cell (about two per boundary in total for 1m).
 * 525,600 one-minute candles take some tens of milliseconds.
 */

/** Lattice spacings (minutes) of the fine octaves, scaled by the volatility factor. */
const FINE_SPACINGS = [1, 4, 16, 64, 256];
/** Minutes of a segment: every coarse and volatility cell boundary is a multiple of it. */
const SEGMENT = 1024;
/** Lattice spacings of the coarse octaves, 1024 minutes to about two years. */
const COARSE_SPACINGS = Array.from({ length: 10 }, (_, k) => SEGMENT * 2 ** k);
const MINUTE_MS = 60_000;

export interface SyntheticMarketDataOptions {
  /** Recorded as the candles' source. Default `synthetic`. */
  source?: string;
  /** Typical log-return of one minute (before the volatility factor). Default 0.0007 (about 2.7% a day). */
  minuteVolatility?: number;
  /** The most candles one request may cover. Default 2,000,000. */
  maxCandles?: number;
}

/** 32-bit integer mixer (the "lowbias32" finalizer): every input bit affects every output bit. */
function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A uniform number in [-1, 1) from (seed, stream, index); index may be any integer below 2^53. */
export function noise(seed: number, stream: number, index: number): number {
  const lo = index | 0;
  const hi = Math.floor(index / 4294967296) | 0;
  const h = mix32(seed ^ mix32(Math.imul(stream + 1, 0x9e3779b9) ^ mix32(lo ^ Math.imul(hi, 0x85ebca6b))));
  return h / 2147483648 - 1;
}

/** FNV-1a of the symbol's UTF-16 code units, mixed: the seed of a symbol's price path. */
export function symbolSeed(symbol: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < symbol.length; i++) {
    h ^= symbol.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

/** Values of one octave of value noise: spacing (minutes), amplitude and hash stream. */
interface Octave {
  spacing: number;
  amplitude: number;
  stream: number;
}

/**
 * The price path of one symbol, as pure functions of the minute. The fine octaves keep the
 * lattice cell they last evaluated and its two end values (in typed arrays), so a sweep in time
 * order hashes only when an octave enters a new cell. The coarse and volatility octaves all have
 * cells aligned to SEGMENT minutes, so within a segment their sum is exactly linear: it is
 * computed once per segment as `a + b * (minute - segmentStart)` from the segment alone. Neither
 * shortcut changes a result: every value depends on (seed, minute) only, never on the order of
 * evaluation.
 */
function createPath(symbol: string, minuteVolatility: number) {
  const seed = symbolSeed(symbol);
  // A base price between about 3 and 30,000, log-uniform, fixed per symbol.
  const logBase = Math.log(10) * (0.5 + 4 * (0.5 + 0.5 * noise(seed, 1000, 7)));

  const fine: Octave[] = FINE_SPACINGS.map((spacing, k) => ({ spacing, amplitude: minuteVolatility * Math.sqrt(spacing) * 1.7, stream: k }));
  const coarse: Octave[] = COARSE_SPACINGS.map((spacing, k) => ({ spacing, amplitude: minuteVolatility * Math.sqrt(spacing) * 1.2, stream: 10 + k }));
  const volOctaves: Octave[] = [
    { spacing: 2 ** 13, amplitude: 0.55, stream: 100 },
    { spacing: 2 ** 15, amplitude: 0.35, stream: 101 },
  ];

  const n = fine.length;
  const spacing = Float64Array.from(fine, (o) => o.spacing);
  const inverse = Float64Array.from(fine, (o) => 1 / o.spacing);
  const amplitude = Float64Array.from(fine, (o) => o.amplitude);
  const cell = new Float64Array(n).fill(Number.NaN);
  const v0 = new Float64Array(n);
  const v1 = new Float64Array(n);

  /** Octave `o` at `minute`: its value and its slope per minute. */
  function octaveAt(o: Octave, minute: number): [value: number, slope: number] {
    const c = Math.floor(minute / o.spacing);
    const a = noise(seed, o.stream, c);
    const b = noise(seed, o.stream, c + 1);
    const frac = (minute - c * o.spacing) / o.spacing;
    return [o.amplitude * (a + (b - a) * frac), (o.amplitude * (b - a)) / o.spacing];
  }

  let segment = Number.NaN;
  let segmentStart = 0;
  let coarseValue = 0;
  let coarseSlope = 0;
  let volatility = 1;
  function enterSegment(s: number): void {
    segment = s;
    segmentStart = s * SEGMENT;
    coarseValue = logBase;
    coarseSlope = 0;
    for (const o of coarse) {
      const [value, slope] = octaveAt(o, segmentStart);
      coarseValue += value;
      coarseSlope += slope;
    }
    // Constant within a segment (about 17 hours): the level at its middle.
    let volExponent = 0;
    for (const o of volOctaves) volExponent += octaveAt(o, segmentStart + SEGMENT / 2)[0];
    volatility = Math.exp(volExponent);
  }

  return {
    seed,
    logBase,
    /** The volatility factor (about 0.5 to 2.5) of the segment of the last `logPrice` call. */
    volatility: () => volatility,
    logPrice(minute: number): number {
      const s = Math.floor(minute / SEGMENT);
      if (s !== segment) enterSegment(s);
      let sum = 0;
      for (let k = 0; k < n; k++) {
        const c = Math.floor(minute * inverse[k]!);
        if (c !== cell[k]) {
          v0[k] = c === cell[k]! + 1 ? v1[k]! : noise(seed, k, c);
          v1[k] = noise(seed, k, c + 1);
          cell[k] = c;
        }
        const a = v0[k]!;
        sum += amplitude[k]! * (a + (v1[k]! - a) * ((minute - c * spacing[k]!) * inverse[k]!));
      }
      return coarseValue + coarseSlope * (minute - segmentStart) + sum * volatility;
    },
  };
}

/**
 * The synthetic candles of `symbol` opening in [startMs, endMs) (both aligned to the
 * timeframe). The same arguments give the same numbers, and every candle is independent of the
 * range it is requested in.
 */
export function generateSyntheticSeries(
  symbol: string,
  timeframe: TimeframeName,
  startMs: number,
  endMs: number,
  options: { minuteVolatility?: number } = {},
): CandleSeries {
  const timeframeMs = TIMEFRAME_MS[timeframe];
  const minutes = timeframeMs / MINUTE_MS;
  const first = Math.ceil(startMs / timeframeMs);
  const count = Math.max(0, Math.ceil(endMs / timeframeMs) - first);
  const minuteVolatility = options.minuteVolatility ?? 0.0007;
  const path = createPath(symbol, minuteVolatility);
  const series = allocateSeries(symbol, timeframe, count);
  const { time, open, high, low, close, volume } = series;
  const candleVolatility = minuteVolatility * Math.sqrt(minutes);
  const stream = 2000 + minutes;
  const baseVolume = (2e5 / Math.exp(path.logBase)) * minutes;

  let minute = first * minutes;
  let logOpen = path.logPrice(minute);
  let vol = path.volatility();
  let o = Math.exp(logOpen);
  for (let i = 0; i < count; i++) {
    const index = first + i;
    const nextMinute = minute + minutes;
    const logClose = path.logPrice(nextMinute);
    const nextVol = path.volatility();
    const c = Math.exp(logClose);
    // Wicks: a random share of the candle's typical range above the top and below the bottom.
    const h = noise(path.seed, stream, index);
    const u1 = (mix32(h * 2147483648) & 0xffff) / 65536;
    const u2 = (mix32(h * 2147483648 + 1) & 0xffff) / 65536;
    const u3 = 0.5 + 0.5 * h;
    const wick = candleVolatility * vol * 0.6;
    time[i] = index * timeframeMs;
    open[i] = o;
    close[i] = c;
    high[i] = Math.max(o, c) * (1 + wick * u1 * u1);
    low[i] = Math.min(o, c) / (1 + wick * u2 * u2);
    const move = Math.abs(logClose - logOpen) / candleVolatility;
    volume[i] = baseVolume * vol * (0.3 + u3) * (1 + move);
    minute = nextMinute;
    vol = nextVol;
    logOpen = logClose;
    o = c;
  }
  return series;
}

/**
 * MarketData of deterministic synthetic candles and funding rates, seeded by symbol: any
 * symbol, any range, no network. A page (`getCandlePage`) costs its own candles only, wherever it is in the range. It does not know the time: a caller that must not show future candles (the
 * composite `createMarketData` does this) trims them itself.
 */
export function createSyntheticMarketData(options: SyntheticMarketDataOptions = {}): MarketData {
  const source = options.source ?? 'synthetic';
  return {
    async getCandles(request) {
      const range = resolveCandleRange(request, options);
      const series = generateSyntheticSeries(range.symbol, range.timeframe, range.startMs, range.endMs, options);
      return { source, series };
    },
    // Every candle is a function of its own index: a page generates its own candles only.
    async getCandlePage(request) {
      const range = resolveCandleRange(request, options);
      const from = Math.ceil(Math.max(range.startMs, request.fromMs ?? range.startMs) / range.timeframeMs) * range.timeframeMs;
      const to = Math.min(range.endMs, from + request.limit * range.timeframeMs);
      const series = generateSyntheticSeries(range.symbol, range.timeframe, from, Math.max(from, to), options);
      return { source, series, nextMs: to < range.endMs ? to : null };
    },
    // Every 8 hours from 00:00 UTC (synthetic-funding.ts), for any symbol; like the candles, it
    // does not know the time: the composite `createMarketData` drops events still to come.
    async getFundingRates(request) {
      const range = resolveFundingRange(request);
      return { source, series: generateSyntheticFunding(range.symbol, range.startMs, range.endMs) };
    },
  };
}
