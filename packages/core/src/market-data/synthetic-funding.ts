import type { FundingSeries } from '../ports/market-data.js';
import { allocateFunding } from './funding-series.js';
import { noise, symbolSeed } from './synthetic-market-data.js';

/*
 * Deterministic synthetic funding rates, so offline backtests of perpetuals pay funding too.
 *
 * Events are every 8 hours, at 00:00, 08:00 and 16:00 UTC, as on most exchanges. The rate of
 * event k (k = time / 8 h) is a pure function of (symbol, k):
 *   0.0001 (the usual 0.01 % of a calm market)
 *   + a slow swing (value noise over cells of 21 events, a week, linearly interpolated), of
 *     amplitude 0.0002, which makes the rate negative for days at a time about a fifth of the time
 *   + a small per-event jitter of amplitude 0.00003
 *   + now and then (one event in 20) a spike of up to 0.0012 either way,
 * clamped to [-0.003, 0.003]. Like the synthetic candles, an event is the same number whatever
 * range it is requested in. The rates do not follow the synthetic prices: they are only a
 * plausible cost of holding a position, so that backtests of perpetuals are not free of it.
 */

/** Time between two synthetic funding events: 8 hours. */
export const SYNTHETIC_FUNDING_INTERVAL_MS = 8 * 3_600_000;
/** The largest rate, either way. */
export const SYNTHETIC_FUNDING_BOUND = 0.003;

const BASE = 0.0001;
const SWING = 0.0002;
const SWING_EVENTS = 21;
const JITTER = 0.00003;
const SPIKE = 0.0012;
const SPIKE_THRESHOLD = 0.95;
/** Noise streams, apart from those of the synthetic candles (0..2100). */
const SWING_STREAM = 5000;
const JITTER_STREAM = 5001;
const SPIKE_STREAM = 5002;

/** The synthetic funding rate of event `k` (at k x 8 h since the epoch) of a symbol's seed. */
function rateAt(seed: number, k: number): number {
  const cell = Math.floor(k / SWING_EVENTS);
  const frac = (k - cell * SWING_EVENTS) / SWING_EVENTS;
  const a = noise(seed, SWING_STREAM, cell);
  const b = noise(seed, SWING_STREAM, cell + 1);
  let rate = BASE + SWING * (a + (b - a) * frac) + JITTER * noise(seed, JITTER_STREAM, k);
  const spike = noise(seed, SPIKE_STREAM, k);
  if (Math.abs(spike) > SPIKE_THRESHOLD) rate += (SPIKE * (Math.abs(spike) - SPIKE_THRESHOLD) * Math.sign(spike)) / (1 - SPIKE_THRESHOLD);
  return Math.min(SYNTHETIC_FUNDING_BOUND, Math.max(-SYNTHETIC_FUNDING_BOUND, rate));
}

/**
 * The synthetic funding events of `symbol` at times in [startMs, endMs): every 8 hours from
 * 00:00 UTC. The same arguments give the same numbers, and every event is independent of the
 * range it is requested in.
 */
export function generateSyntheticFunding(symbol: string, startMs: number, endMs: number): FundingSeries {
  const first = Math.ceil(startMs / SYNTHETIC_FUNDING_INTERVAL_MS);
  const count = Math.max(0, Math.ceil(endMs / SYNTHETIC_FUNDING_INTERVAL_MS) - first);
  const seed = symbolSeed(symbol);
  const series = allocateFunding(symbol, count);
  for (let i = 0; i < count; i++) {
    const k = first + i;
    series.time[i] = k * SYNTHETIC_FUNDING_INTERVAL_MS;
    series.rate[i] = rateAt(seed, k);
  }
  return series;
}
