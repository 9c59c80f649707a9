import type { BacktestDetail } from '@stratbox/client';
import { equitySeries } from '../backtests/chart-data.js';

type Metrics = NonNullable<BacktestDetail['metrics']>;

/** The value every compared curve starts at. */
export const REBASE_START = 100;

/**
 * An equity curve rebased to start at 100 (its first equity is 100, every later one in
 * proportion), so two runs with different capital share one axis; chart points in strictly
 * increasing seconds. Empty when the curve is empty or starts at 0 or less.
 */
export function rebasedEquity(points: Array<{ time: string; equity: number }>): Array<{ time: number; value: number }> {
  const series = equitySeries(points);
  const first = series[0]?.value;
  if (first === undefined || !(first > 0)) return [];
  return series.map(({ time, value }) => ({ time, value: (value / first) * REBASE_START }));
}

/** Which way is better for a metric: `higher`, `lower`, or `none` (a figure, not a score). */
export type Better = 'higher' | 'lower' | 'none';

/** How to judge each run-wide metric the dashboard shows, by its label. */
export const BETTER: Record<string, Better> = {
  'Total return': 'higher',
  CAGR: 'higher',
  'Max drawdown': 'lower',
  'Longest drawdown': 'lower',
  Sharpe: 'higher',
  Sortino: 'higher',
  Calmar: 'higher',
  'Win rate': 'higher',
  'Profit factor': 'higher',
  Expectancy: 'higher',
  Trades: 'none',
  Exposure: 'none',
  'Fees paid': 'lower',
  'Funding paid': 'lower',
  'Buy and hold': 'none',
};

/** The numbers behind each label, to judge which run is better (the cards format them). */
export const METRIC_NUMBERS: Record<string, (m: Metrics) => number | null> = {
  'Total return': (m) => m.totalReturn,
  CAGR: (m) => m.cagr,
  // a drawdown is negative or positive by convention: its size is what matters
  'Max drawdown': (m) => (m.maxDrawdown === null ? null : Math.abs(m.maxDrawdown)),
  'Longest drawdown': (m) => m.maxDrawdownDuration,
  Sharpe: (m) => m.sharpe,
  Sortino: (m) => m.sortino,
  Calmar: (m) => m.calmar,
  'Win rate': (m) => m.winRate,
  'Profit factor': (m) => m.profitFactor,
  Expectancy: (m) => m.expectancy,
  'Fees paid': (m) => m.feesPaid,
  'Funding paid': (m) => m.fundingPaid,
};

/** Which of two values is better (`a`, `b`), or null for a tie, a metric that is not a score, or a missing value. */
export function betterOf(a: number | null | undefined, b: number | null | undefined, better: Better): 'a' | 'b' | null {
  if (better === 'none' || a === null || a === undefined || b === null || b === undefined) return null;
  if (!Number.isFinite(a) || !Number.isFinite(b) || a === b) return null;
  return (better === 'higher' ? a > b : a < b) ? 'a' : 'b';
}
