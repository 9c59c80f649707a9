import type { RecordedCandle } from './drift-types.js';

/*
 * Equity series the comparison works on (docs/drift.md, "Equity"). Pure.
 */

export interface EquityPoint {
  time: number;
  equity: number;
}

const DAY_MS = 86_400_000;

/**
 * The live equity curve: the equity each recorded candle showed the strategy, in time order,
 * one point per candle time (with several symbols, the last one recorded at that time).
 */
export function liveEquityCurve(candles: readonly RecordedCandle[]): readonly EquityPoint[] {
  let curve = liveCurves.get(candles);
  if (!curve) {
    curve = buildLiveCurve(candles);
    liveCurves.set(candles, curve);
  }
  return curve;
}

/** The live curve of each candle list already asked for (the comparison and the waterfall both need it). */
const liveCurves = new WeakMap<readonly RecordedCandle[], readonly EquityPoint[]>();

function buildLiveCurve(candles: readonly RecordedCandle[]): EquityPoint[] {
  // Recordings are listed in time order, with one symbol mostly: then no sort is needed.
  let ordered = true;
  for (let i = 1; i < candles.length && ordered; i++) {
    const a = candles[i - 1]!;
    const b = candles[i]!;
    ordered = a.time < b.time || (a.time === b.time && a.recordedAt <= b.recordedAt);
  }
  const sorted = ordered ? candles : [...candles].sort((a, b) => a.time - b.time || a.recordedAt.localeCompare(b.recordedAt));
  return lastPerTime(sorted.map((c) => ({ time: c.time, equity: c.equity })));
}

/** One point per time (the last of each run of equal times), in time order. */
export function dedupeByTime(points: readonly EquityPoint[]): EquityPoint[] {
  let ordered = true;
  for (let i = 1; i < points.length && ordered; i++) ordered = points[i - 1]!.time <= points[i]!.time;
  return lastPerTime(ordered ? points : [...points].sort((a, b) => a.time - b.time));
}

/** Keeps the last point of each run of equal times of time-ordered points. */
function lastPerTime(sorted: readonly EquityPoint[]): EquityPoint[] {
  const out: EquityPoint[] = [];
  for (const p of sorted) {
    if (out.length && out[out.length - 1]!.time === p.time) out[out.length - 1] = p;
    else out.push(p);
  }
  return out;
}

/** The last point of each UTC day (keyed by epoch ms / 1 day, floored), divided by the first point; empty when the first is not positive. */
export function normalizedDailyCloses(points: readonly EquityPoint[]): Map<number, number> {
  const out = new Map<number, number>();
  const base = points[0]?.equity;
  if (!base || !(base > 0)) return out;
  for (const p of points) out.set(Math.floor(p.time / DAY_MS), p.equity / base);
  return out;
}

/** The equity the live P&L counts from: the first run's start equity, else the first recorded equity (null with neither). */
export function liveStartEquity(runs: ReadonlyArray<{ startedAt: string; startEquity: number | null }>, live: readonly EquityPoint[]): number | null {
  const first = [...runs].sort((a, b) => a.startedAt.localeCompare(b.startedAt))[0];
  return first?.startEquity ?? live[0]?.equity ?? null;
}

/** The last point at or before `time` and less than `withinMs` before it, by binary search over time-ordered `points`. */
export function pointAt(points: readonly EquityPoint[], time: number, withinMs: number): EquityPoint | null {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.time <= time) lo = mid + 1;
    else hi = mid;
  }
  const p = points[lo - 1];
  return p && time - p.time < withinMs ? p : null;
}
