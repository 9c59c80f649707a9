import type { DriftReport } from '@stratbox/contract';
import { downsampleEquity } from '../backtests/equity-downsample.js';
import type { DriftInput } from './drift-types.js';
import { maxDrawdown, pearson, sampleStdev } from './drift-stats.js';
import { dtwDistance } from './dtw-distance.js';
import { dedupeByTime, liveEquityCurve, normalizedDailyCloses, pointAt, type EquityPoint } from './equity-series.js';

/*
 * The live and replay equity curves compared (docs/drift.md, "Equity"). Pure.
 */

/** Most points of the overlaid curves the report keeps. */
export const MAX_DRIFT_POINTS = 500;
/** Crypto markets trade every day. */
const DAYS_PER_YEAR = 365;

/** Returns between consecutive keys of `closes`, restricted to `days` (ascending). */
function returnsOn(closes: Map<number, number>, days: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < days.length; i++) out.push(closes.get(days[i]!)! / closes.get(days[i - 1]!)! - 1);
  return out;
}

const sortedDays = (closes: Map<number, number>) => [...closes.keys()].sort((a, b) => a - b);

export function compareEquity(input: DriftInput): DriftReport['equity'] {
  const live = liveEquityCurve(input.live.candles);
  const replay = dedupeByTime(input.replay.equityCurve);
  const liveDaily = normalizedDailyCloses(live);
  const replayDaily = normalizedDailyCloses(replay);

  // Correlation and tracking error: daily returns over the days both curves have.
  const common = sortedDays(liveDaily).filter((d) => replayDaily.has(d));
  const liveReturns = returnsOn(liveDaily, common);
  const replayReturns = returnsOn(replayDaily, common);
  const correlation = liveReturns.length >= 3 ? pearson(liveReturns, replayReturns, 3) : null;
  const te = sampleStdev(liveReturns.map((r, i) => r - replayReturns[i]!));
  const trackingError = te === null ? null : te * Math.sqrt(DAYS_PER_YEAR);

  // DTW: each curve's own daily returns (a day the live run missed is simply absent from its series).
  const liveOwn = returnsOn(liveDaily, sortedDays(liveDaily));
  const replayOwn = returnsOn(replayDaily, sortedDays(replayDaily));
  const dtw = liveOwn.length && replayOwn.length ? (dtwDistance(liveOwn, replayOwn) / replayOwn.length) * DAYS_PER_YEAR : null;

  const liveFinal = live.length ? live[live.length - 1]!.equity : input.replay.finalEquity;
  const ddLive = maxDrawdown(live.map((p) => p.equity));
  const ddReplay = maxDrawdown(replay.map((p) => p.equity));
  return {
    points: overlaidPoints(live, replay, input.stepMs),
    correlation,
    dtw,
    trackingError,
    finalDifference: liveFinal - input.replay.finalEquity,
    maxDrawdown: { live: ddLive, replay: ddReplay, difference: ddLive - ddReplay },
  };
}

/** Both curves on the replay's times (downsampled, keeping each bucket's low and high), the live value null where the run recorded nothing for that candle. */
function overlaidPoints(live: readonly EquityPoint[], replay: readonly EquityPoint[], stepMs: number): DriftReport['equity']['points'] {
  const times = Float64Array.from(replay, (p) => p.time);
  const equity = Float64Array.from(replay, (p) => p.equity);
  return downsampleEquity(times, equity, MAX_DRIFT_POINTS).map((p) => {
    const at = pointAt(live, Date.parse(p.time), Math.max(1, stepMs));
    return { time: p.time, live: at ? at.equity : null, replay: p.equity };
  });
}
