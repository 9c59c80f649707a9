import type { z } from 'zod';
import type { Metrics, SymbolMetrics } from '@stratbox/contract';
import { exactPow } from '../../util/exact-pow.js';

export type BacktestMetrics = z.infer<typeof Metrics>;
export type BacktestSymbolMetrics = z.infer<typeof SymbolMetrics>;

/** The year metrics annualize with: 365 days, as crypto markets trade every day. */
export const YEAR_MS = 365 * 24 * 3600 * 1000;

/** An equity curve: `values[i]` marked at `times[i]` (ms), ascending, starting from `initial`. */
export interface CurveInput {
  times: ArrayLike<number>;
  values: ArrayLike<number>;
  /** Capital before the first mark. */
  initial: number;
  /** 1 where a position was open at the mark (for exposure); optional. */
  inMarket?: ArrayLike<number>;
}

/** Closed trades, as the numbers metrics need. */
export interface TradeInput {
  pnl: ArrayLike<number>;
  fees: ArrayLike<number>;
  /** Funding paid per trade (negative: received); none: 0. */
  funding?: ArrayLike<number>;
}

/** Past this many distinct gaps, `medianGap` sorts them all. */
const MAX_DISTINCT_GAPS = 64;

/** The typical spacing of marks: the median gap between consecutive times (0 with fewer than 2 marks). */
export function medianGap(times: ArrayLike<number>): number {
  const n = times.length;
  if (n < 2) return 0;
  // At most ~10,000 evenly spread gaps: the median of a long regular series needs no full sort.
  const step = Math.max(1, Math.floor((n - 1) / 10_000));
  const count = Math.ceil((n - 1) / step);
  const middle = (count - 1) >> 1;
  // Candle times have few distinct gaps: count them and walk the distinct ones in order, instead of sorting every gap.
  const seen = new Map<number, number>();
  for (let i = 1; i < n && seen.size <= MAX_DISTINCT_GAPS; i += step) {
    const gap = times[i]! - times[i - 1]!;
    seen.set(gap, (seen.get(gap) ?? 0) + 1);
  }
  if (seen.size <= MAX_DISTINCT_GAPS) {
    let below = 0;
    for (const gap of [...seen.keys()].sort((a, b) => a - b)) {
      below += seen.get(gap)!;
      if (below > middle) return gap;
    }
  }
  const gaps = new Float64Array(count);
  for (let i = 1, k = 0; i < n; i += step) gaps[k++] = times[i]! - times[i - 1]!;
  gaps.sort();
  return gaps[middle]!;
}

/**
 * Return and risk metrics of an equity curve:
 * - totalReturn = final / initial - 1.
 * - cagr = (final / initial) ^ (1 / years) - 1, years = (last - first + one bar) / 365 days.
 * - maxDrawdown: the largest fall from a running peak (the peak starts at `initial`), as a
 *   positive fraction; maxDrawdownDuration: the longest time (ms) from a peak until equity is
 *   back at it, or until the end if it never is.
 * - sharpe and sortino from per-mark simple returns (the first against `initial`), risk-free
 *   rate 0, annualized by sqrt(marks per year); sharpe uses the sample standard deviation,
 *   sortino the downside deviation sqrt(sum(min(r, 0)^2) / n). Null when undefined.
 * - calmar = cagr / maxDrawdown.
 */
export function curveMetrics(curve: CurveInput) {
  const { times, values, initial } = curve;
  const n = values.length;
  if (n === 0) {
    return { totalReturn: 0, cagr: null, maxDrawdown: 0, maxDrawdownDuration: 0, sharpe: null, sortino: null, calmar: null, exposure: null };
  }
  const final = values[n - 1]!;
  const totalReturn = final / initial - 1;
  const bar = medianGap(times);
  const years = (times[n - 1]! - times[0]! + bar) / YEAR_MS;
  // exactPow, not **: the same bits on every Node version (V8's pow changed between 20 and 24).
  const cagr = years > 0 ? (final <= 0 ? -1 : exactPow(final / initial, 1 / years) - 1) : null;

  let peak = initial;
  let peakTime = times[0]!;
  let inDrawdown = false;
  let maxDrawdown = 0;
  let longest = 0;
  let sum = 0;
  let prev = initial;
  const returns = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const t = times[i]!;
    const r = prev !== 0 ? v / prev - 1 : 0;
    returns[i] = r;
    sum += r;
    prev = v;
    if (v >= peak) {
      if (inDrawdown) longest = Math.max(longest, t - peakTime);
      inDrawdown = false;
      peak = v;
      peakTime = t;
    } else {
      inDrawdown = true;
      const dd = peak > 0 ? (peak - v) / peak : 1;
      if (dd > maxDrawdown) maxDrawdown = dd;
    }
  }
  if (inDrawdown) longest = Math.max(longest, times[n - 1]! - peakTime);

  const mean = sum / n;
  let sq = 0;
  let down = 0;
  for (let i = 0; i < n; i++) {
    const d = returns[i]! - mean;
    sq += d * d;
    if (returns[i]! < 0) down += returns[i]! * returns[i]!;
  }
  const periodsPerYear = bar > 0 ? YEAR_MS / bar : 0;
  const std = n > 1 ? Math.sqrt(sq / (n - 1)) : 0;
  const downside = Math.sqrt(down / n);
  const annual = Math.sqrt(periodsPerYear);
  const sharpe = std > 0 && periodsPerYear > 0 ? (mean / std) * annual : null;
  const sortino = downside > 0 && periodsPerYear > 0 ? (mean / downside) * annual : null;
  const calmar = cagr !== null && maxDrawdown > 0 ? cagr / maxDrawdown : null;

  let exposure: number | null = null;
  if (curve.inMarket) {
    let open = 0;
    for (let i = 0; i < n; i++) if (curve.inMarket[i]) open++;
    exposure = open / n;
  }
  return { totalReturn, cagr, maxDrawdown, maxDrawdownDuration: longest, sharpe, sortino, calmar, exposure };
}

/**
 * Trade metrics. winRate: share of trades with pnl > 0 (pnl is net of fees); profitFactor:
 * gross profit / gross loss (null without a losing trade); expectancy: mean pnl per trade;
 * feesPaid: all fees; fundingPaid: funding paid less funding received.
 */
export function tradeMetrics(trades: TradeInput) {
  const n = trades.pnl.length;
  let wins = 0;
  let profit = 0;
  let loss = 0;
  let total = 0;
  let fees = 0;
  let funding = 0;
  for (let i = 0; i < n; i++) {
    const p = trades.pnl[i]!;
    total += p;
    fees += trades.fees[i]!;
    if (trades.funding) funding += trades.funding[i]!;
    if (p > 0) {
      wins++;
      profit += p;
    } else if (p < 0) loss -= p;
  }
  return {
    winRate: n > 0 ? wins / n : null,
    profitFactor: loss > 0 ? profit / loss : null,
    expectancy: n > 0 ? total / n : null,
    tradeCount: n,
    feesPaid: fees,
    fundingPaid: funding,
  };
}

/** Metrics of one curve plus its trades and buy-and-hold return, in the contract's shape. */
export function symbolMetrics(curve: CurveInput, trades: TradeInput, buyAndHoldReturn: number | null): BacktestSymbolMetrics {
  const c = curveMetrics(curve);
  const t = tradeMetrics(trades);
  return {
    totalReturn: c.totalReturn,
    cagr: c.cagr,
    maxDrawdown: c.maxDrawdown,
    maxDrawdownDuration: c.maxDrawdownDuration,
    sharpe: c.sharpe,
    sortino: c.sortino,
    calmar: c.calmar,
    winRate: t.winRate,
    profitFactor: t.profitFactor,
    expectancy: t.expectancy,
    tradeCount: t.tradeCount,
    exposure: c.exposure,
    feesPaid: t.feesPaid,
    fundingPaid: t.fundingPaid,
    buyAndHoldReturn,
  };
}

/** Buy-and-hold return over a symbol's traded candles: last close / first close - 1. */
export function buyAndHold(firstClose: number, lastClose: number): number | null {
  return firstClose > 0 && Number.isFinite(lastClose) ? lastClose / firstClose - 1 : null;
}
