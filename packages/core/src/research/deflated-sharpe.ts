/*
 * The Probabilistic and the Deflated Sharpe Ratio (D. H. Bailey and M. López de Prado, "The
 * Deflated Sharpe Ratio: Correcting for Selection Bias, Backtest Overfitting and
 * Non-Normality", Journal of Portfolio Management 40(5), 2014, pp. 94-107). Pure functions over
 * per-period numbers; formulas, conventions and limits in docs/overfitting-statistics.md.
 *
 * Conventions, everywhere here:
 * - Sharpe ratios are per period, not annualized: mean / standard deviation of the per-period
 *   returns given (excess returns: subtract a risk-free rate before, if any). An annual Sharpe
 *   ratio of a daily series is the daily one times sqrt(periods per year); divide before calling.
 * - Kurtosis is the plain fourth standardized moment (3 for a normal distribution), not excess.
 * - The moments of a return series are plug-in (population, divisor T) estimates: the PSR is the
 *   delta-method asymptotic of the Sharpe ratio in those moments, the difference from sample
 *   (T - 1) estimates is O(1/T) (below the formula's own asymptotic error), and plug-in moments
 *   always satisfy kurtosis >= skewness^2 + 1, which keeps the PSR's variance term positive.
 * - The variance of the trials' Sharpe ratios is a sample variance (divisor N - 1): it estimates
 *   the dispersion of the Sharpe ratios a search draws, from what are often few trials.
 */
import { StratboxError } from '../errors/index.js';
import { normalCdf, normalQuantile } from './normal-distribution.js';

/** The Euler-Mascheroni constant gamma. */
export const EULER_MASCHERONI = 0.5772156649015329;

/** What the Sharpe ratio tests need of one return series (all per period, kurtosis not excess). */
export interface ReturnMoments {
  /** Mean / standard deviation, per period. */
  sharpe: number;
  /** Third standardized moment. */
  skewness: number;
  /** Fourth standardized moment (3 for normal returns). */
  kurtosis: number;
  /** T, the number of returns. */
  observations: number;
}

export interface ProbabilisticSharpeInput extends ReturnMoments {
  /** SR*, the per-period Sharpe ratio the true one is tested against. */
  benchmark: number;
}

/** The trials of a search: their per-period Sharpe ratios, or only their count and the variance of those. */
export type SharpeTrials = readonly number[] | { count: number; variance: number };

export interface DeflatedSharpeInput extends ReturnMoments {
  /** N, the number of independent trials the selected strategy was the best of (at least 2; may be an effective, non-integer count). */
  trials: number;
  /** V, the variance of the trials' per-period Sharpe ratios. */
  trialsVariance: number;
}

export interface DeflatedSharpeReport extends DeflatedSharpeInput {
  /** E[max SR] of N independent trials with true Sharpe ratio 0: the benchmark the DSR tests against. */
  expectedMaxSharpe: number;
  /** DSR = PSR(E[max SR]): the probability that the true Sharpe ratio exceeds what luck alone gives the best of N. */
  deflatedSharpe: number;
}

function invalid(message: string): StratboxError {
  return new StratboxError('VALIDATION_FAILED', message);
}

function checkMoments({ sharpe, skewness, kurtosis, observations }: ReturnMoments): void {
  if (!Number.isFinite(sharpe)) throw invalid('The Sharpe ratio must be a finite number');
  if (!Number.isInteger(observations) || observations < 2) throw invalid('The number of observations must be an integer of at least 2');
  if (!Number.isFinite(skewness) || !Number.isFinite(kurtosis)) throw invalid('Skewness and kurtosis must be finite numbers');
  // Pearson's inequality, with room for rounding: no distribution has a smaller kurtosis.
  if (kurtosis < skewness * skewness + 1 - 1e-9) throw invalid('The kurtosis must be at least skewness^2 + 1 (it is not excess kurtosis)');
}

/**
 * PSR(SR*) = Phi( (SR - SR*) sqrt(T - 1) / sqrt(1 - g3 SR + (g4 - 1)/4 SR^2) ): the probability
 * that the true Sharpe ratio exceeds SR*, given the observed per-period SR, T observations,
 * skewness g3 and kurtosis g4 (Bailey and López de Prado 2014; first in their 2012 "The Sharpe
 * Ratio Efficient Frontier"). Asymptotic in T and assumes independent returns.
 * Throws VALIDATION_FAILED for impossible inputs (see `checkMoments`).
 */
export function probabilisticSharpeRatio(input: ProbabilisticSharpeInput): number {
  checkMoments(input);
  const { sharpe, benchmark, observations, skewness, kurtosis } = input;
  if (!Number.isFinite(benchmark)) throw invalid('The benchmark Sharpe ratio must be a finite number');
  const variance = 1 - skewness * sharpe + ((kurtosis - 1) / 4) * sharpe * sharpe;
  return normalCdf(((sharpe - benchmark) * Math.sqrt(observations - 1)) / Math.sqrt(Math.max(variance, 0)));
}

/**
 * E[max SR] = sqrt(V) ((1 - gamma) Phi^-1(1 - 1/N) + gamma Phi^-1(1 - 1/(N e))): the expected
 * largest Sharpe ratio of N independent trials whose Sharpe ratios are normal with mean 0 and
 * variance V (Bailey and López de Prado 2014). An approximation from extreme value theory,
 * better as N grows (2.3 % above the exact mean at N = 10, 0.4 % at N = 1000). Throws
 * VALIDATION_FAILED unless N > 1 and V >= 0.
 */
export function expectedMaxSharpe({ trials, variance }: { trials: number; variance: number }): number {
  if (!Number.isFinite(trials) || trials <= 1) throw invalid('The number of trials must be greater than 1');
  if (!Number.isFinite(variance) || variance < 0) throw invalid("The variance of the trials' Sharpe ratios must be a finite number >= 0");
  const g = EULER_MASCHERONI;
  return Math.sqrt(variance) * ((1 - g) * normalQuantile(1 - 1 / trials) + g * normalQuantile(1 - 1 / (trials * Math.E)));
}

/** DSR = PSR(E[max SR]): the Probabilistic Sharpe Ratio against the best Sharpe ratio N trials of no skill are expected to show. */
export function deflatedSharpeRatio(input: DeflatedSharpeInput): number {
  const benchmark = expectedMaxSharpe({ trials: input.trials, variance: input.trialsVariance });
  return probabilisticSharpeRatio({ ...input, benchmark });
}

/**
 * The per-period Sharpe ratio, skewness and kurtosis of a return series, by plug-in (divisor T)
 * moments. Throws VALIDATION_FAILED for fewer than 2 returns, a non-finite one, or a series with
 * no dispersion (its Sharpe ratio is undefined).
 */
export function returnMoments(returns: readonly number[]): ReturnMoments {
  const n = returns.length;
  if (n < 2) throw invalid('At least 2 returns are needed');
  let sum = 0;
  for (const r of returns) {
    if (!Number.isFinite(r)) throw invalid('Every return must be a finite number');
    sum += r;
  }
  const mean = sum / n;
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (const r of returns) {
    const d = r - mean;
    const d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d2;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  // Dispersion below rounding of the mean is none: a constant series has no Sharpe ratio.
  if (!(m2 > (Number.EPSILON * Math.abs(mean)) ** 2)) throw invalid('The returns do not vary: their Sharpe ratio is undefined');
  const sd = Math.sqrt(m2);
  return { sharpe: mean / sd, skewness: m3 / (m2 * sd), kurtosis: m4 / (m2 * m2), observations: n };
}

/** The count of the trials and the sample variance (divisor N - 1) of their Sharpe ratios. */
function trialsSummary(trials: SharpeTrials): { count: number; variance: number } {
  if (!Array.isArray(trials)) return trials as { count: number; variance: number };
  const ratios = trials as readonly number[];
  if (ratios.length < 2) throw invalid('At least 2 trials are needed');
  if (!ratios.every(Number.isFinite)) throw invalid("Every trial's Sharpe ratio must be a finite number");
  const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
  const variance = ratios.reduce((a, b) => a + (b - mean) ** 2, 0) / (ratios.length - 1);
  return { count: ratios.length, variance };
}

/**
 * The Deflated Sharpe Ratio of the selected strategy's per-period returns, given the search it
 * was selected from: every trial's per-period Sharpe ratio (the selected one included), or their
 * count and variance. Answers the moments used, E[max SR] and the DSR.
 */
export function deflatedSharpeOfReturns(returns: readonly number[], trials: SharpeTrials): DeflatedSharpeReport {
  const moments = returnMoments(returns);
  const { count, variance } = trialsSummary(trials);
  const expected = expectedMaxSharpe({ trials: count, variance });
  const deflatedSharpe = probabilisticSharpeRatio({ ...moments, benchmark: expected });
  return { ...moments, trials: count, trialsVariance: variance, expectedMaxSharpe: expected, deflatedSharpe };
}
