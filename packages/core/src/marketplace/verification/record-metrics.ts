import type { RecordMetrics } from '@stratbox/contract';
import { deflatedSharpeOfReturns, probabilisticSharpeRatio, returnMoments } from '../../research/deflated-sharpe.js';
import { periodGrid, periodReturns } from '../../backtests/engine/period-returns.js';

const DAY_MS = 86_400_000;

/**
 * Days from the trough of the deepest drawdown back to the peak before it (equity at or above
 * it again), or null when it never recovered or there was no drawdown. Peaks start at `initial`.
 */
export function drawdownRecoveryDays(times: ArrayLike<number>, equity: ArrayLike<number>, initial: number): number | null {
  let peak = initial;
  let deepest = 0;
  let troughTime = Number.NaN;
  let troughPeak = Number.NaN;
  for (let i = 0; i < equity.length; i++) {
    const v = equity[i]!;
    if (v >= peak) {
      peak = v;
      continue;
    }
    const dd = peak > 0 ? (peak - v) / peak : 1;
    if (dd > deepest) {
      deepest = dd;
      troughTime = times[i]!;
      troughPeak = peak;
    }
  }
  if (deepest === 0) return null;
  for (let i = 0; i < equity.length; i++) {
    if (times[i]! > troughTime && equity[i]! >= troughPeak) return (times[i]! - troughTime) / DAY_MS;
  }
  return null;
}

/**
 * The per-period returns the Sharpe tests use: on `periodGrid` over the segment (at most 512
 * periods of the timeframe, 1h, 4h, 1d or 1w), so both segments and every timeframe compare.
 */
export function segmentReturns(times: ArrayLike<number>, equity: ArrayLike<number>, initial: number, timeframeMs: number): Float64Array {
  const n = times.length;
  if (n === 0) return new Float64Array(0);
  const grid = periodGrid({ start: times[0]!, end: times[n - 1]! + timeframeMs }, timeframeMs);
  return periodReturns(times, equity, initial, grid);
}

/** PSR against a Sharpe ratio of 0 of per-period returns; null when undefined (fewer than 2 returns, no dispersion). */
export function psrOf(returns: ArrayLike<number>): number | null {
  try {
    return probabilisticSharpeRatio({ ...returnMoments(Array.from(returns)), benchmark: 0 });
  } catch {
    return null;
  }
}

/**
 * The DSR of per-period returns selected from `trials` trials (the search effort, at least 1).
 * The trials' Sharpe ratios are unknown (only their count is): their variance is taken as that
 * of the Sharpe ratio of T returns with no skill, 1 / T (per period). One trial: the PSR.
 */
export function dsrOf(returns: ArrayLike<number>, trials: number): number | null {
  const list = Array.from(returns);
  if (trials <= 1) return psrOf(list);
  try {
    return deflatedSharpeOfReturns(list, { count: trials, variance: 1 / list.length }).deflatedSharpe;
  } catch {
    return null;
  }
}

/** The figures a run's own metrics give (the contract's backtest Metrics, as the runner answers them). */
export interface RunFigures {
  totalReturn: number | null;
  cagr: number | null;
  maxDrawdown: number | null;
  sharpe: number | null;
  exposure: number | null;
  tradeCount: number;
  feesPaid: number;
  fundingPaid: number;
}

/** The run's figures from its metrics object (unknown shape: numbers or null, else null / 0). */
export function runFigures(metrics: Record<string, unknown>): RunFigures {
  const num = (k: string) => (typeof metrics[k] === 'number' && Number.isFinite(metrics[k]) ? (metrics[k] as number) : null);
  return {
    totalReturn: num('totalReturn'),
    cagr: num('cagr'),
    maxDrawdown: num('maxDrawdown'),
    sharpe: num('sharpe'),
    exposure: num('exposure'),
    tradeCount: num('tradeCount') ?? 0,
    feesPaid: num('feesPaid') ?? 0,
    fundingPaid: num('fundingPaid') ?? 0,
  };
}

/** RecordMetrics from a segment's figures, its equity (for the recovery time and the Sharpe tests) and the DSR's trials (null: no DSR). */
export function recordMetrics(
  figures: RunFigures,
  curve: { times: ArrayLike<number>; equity: ArrayLike<number>; initial: number; timeframeMs: number },
  dsrTrials: number | null,
): RecordMetrics {
  const returns = segmentReturns(curve.times, curve.equity, curve.initial, curve.timeframeMs);
  return {
    ...figures,
    maxDrawdownRecoveryDays: drawdownRecoveryDays(curve.times, curve.equity, curve.initial),
    psr: psrOf(returns),
    dsr: dsrTrials === null ? null : dsrOf(returns, Math.max(1, dsrTrials)),
  };
}
