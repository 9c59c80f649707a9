import { YEAR_MS } from '../backtests/engine/metrics.js';
import type { TimeWindow } from '../backtests/engine/time-window.js';
import type { StratboxError } from '../errors/index.js';
import { validationFailed } from '../util/validate.js';

/*
 * Validation windows for an optimization, and what is computed over them afterwards: the
 * stitched out-of-sample equity and the walk-forward efficiency. Pure functions over plain data.
 *
 * Guarantees of `validationWindows`:
 * - Windows are half-open `[start, end)` in epoch ms, and a window holds the candles whose open
 *   time is in it. Every boundary is `range.start + j × timeframeMs` for a whole j.
 * - No leak: every in-sample window ends exactly where its out-of-sample window starts, so no
 *   out-of-sample candle is ever in the window a fold optimizes on. (A strategy tested
 *   out-of-sample may read earlier, in-sample candles to warm up: that is the past, not a leak.)
 * - The out-of-sample windows are consecutive, in time order, do not overlap, are all the same
 *   length and together cover the tail of the range up to its last whole candle:
 *   `range.start + n × timeframeMs` with n = floor((end - start) / timeframeMs), which is
 *   `range.end` when the range is a whole number of candles (a shorter rest belongs to no window).
 * - Every window holds at least MIN_WINDOW_CANDLES candles; a scheme that cannot is refused with
 *   VALIDATION_FAILED and `details: [{ path, message }]`, like a refused request body.
 *
 * The split, for n candles:
 * - `none`: no out-of-sample, no folds (`[]`): the optimization sees the whole range.
 * - `holdout`: one fold; the out-of-sample is the last round(n × fraction) candles, the
 *   in-sample everything before it.
 * - `walk-forward` with k folds and in-sample fraction p (default 1/2): k out-of-sample blocks of
 *   b = floor(n (1 - p) / (k (1 - p) + p)) candles tile the tail, and the first m = n - k × b
 *   candles are the first fold's in-sample window, so that m / (m + b) is p or a little more (m
 *   takes the rounding rest). With p = 1/2 this is the range cut into k + 1 equal blocks. Rolling:
 *   every in-sample window is the m candles before its out-of-sample block. Anchored: every
 *   in-sample window starts at range.start and grows by b each fold.
 *
 *     n candles:  |<------ m ------>|<-- b -->|<-- b -->|<-- b -->|      (k = 3)
 *     rolling     [   in-sample 1   ][  oos 1  ]
 *                           [   in-sample 2   ][  oos 2  ]
 *                                     [   in-sample 3   ][  oos 3  ]
 *     anchored    [   in-sample 1   ][  oos 1  ]
 *                 [   in-sample 2             ][  oos 2  ]
 *                 [   in-sample 3                       ][  oos 3  ]
 */

/** The fewest candles any in-sample or out-of-sample window may hold. */
export const MIN_WINDOW_CANDLES = 2;

export type ValidationScheme =
  | { kind: 'none' }
  /** The last `fraction` of the range, in (0, 1), is out-of-sample. */
  | { kind: 'holdout'; fraction: number }
  /** `folds` out-of-sample blocks tiling the tail; `inSampleFraction` in (0, 1), default 1/2 (see the split above). */
  | { kind: 'walk-forward'; folds: number; mode: 'rolling' | 'anchored'; inSampleFraction?: number };

export interface ValidationFold {
  inSample: TimeWindow;
  outOfSample: TimeWindow;
}

function refuse(path: string, message: string): StratboxError {
  return validationFailed([{ path, message }]);
}

function checkFraction(value: number, path: string): void {
  if (!(value > 0 && value < 1)) throw refuse(path, 'must be a number between 0 and 1, both excluded');
}

function checkCandles(candles: number, what: string, path: string): void {
  if (candles < MIN_WINDOW_CANDLES)
    throw refuse(path, `an ${what} window would hold ${candles} candle${candles === 1 ? '' : 's'}, fewer than ${MIN_WINDOW_CANDLES}`);
}

/** The folds of `scheme` over `range` cut in candles of `timeframeMs` (split and guarantees above). */
export function validationWindows(range: TimeWindow, scheme: ValidationScheme, timeframeMs: number): ValidationFold[] {
  if (!Number.isSafeInteger(timeframeMs) || timeframeMs <= 0) throw refuse('timeframeMs', 'must be a positive whole number of milliseconds');
  if (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end)) throw refuse('range', 'start and end must be whole epoch milliseconds');
  if (range.end <= range.start) throw refuse('range.end', 'must be after range.start');
  const n = Math.floor((range.end - range.start) / timeframeMs);
  const at = (candle: number) => range.start + candle * timeframeMs;
  const window = (from: number, to: number): TimeWindow => ({ start: at(from), end: at(to) });

  if (scheme.kind === 'none') return [];
  if (scheme.kind === 'holdout') {
    checkFraction(scheme.fraction, 'scheme.fraction');
    const outOfSample = Math.round(n * scheme.fraction);
    checkCandles(outOfSample, 'out-of-sample', 'scheme.fraction');
    checkCandles(n - outOfSample, 'in-sample', 'scheme.fraction');
    return [{ inSample: window(0, n - outOfSample), outOfSample: window(n - outOfSample, n) }];
  }
  if (scheme.kind !== 'walk-forward') throw refuse('scheme.kind', "must be 'none', 'holdout' or 'walk-forward'");
  const { folds: k, mode, inSampleFraction: p = 0.5 } = scheme;
  if (!Number.isSafeInteger(k) || k < 1) throw refuse('scheme.folds', 'must be a whole number of at least 1');
  if (mode !== 'rolling' && mode !== 'anchored') throw refuse('scheme.mode', "must be 'rolling' or 'anchored'");
  checkFraction(p, 'scheme.inSampleFraction');
  // The 1e-9 keeps a quotient that is whole on paper (90 × 0.2 / (5 × 0.2 + 0.8) = 10) from flooring to 9.
  const b = Math.floor((n * (1 - p)) / (k * (1 - p) + p) + 1e-9);
  const m = n - k * b;
  checkCandles(b, 'out-of-sample', 'scheme.folds');
  checkCandles(m, 'in-sample', 'scheme.inSampleFraction');
  return Array.from({ length: k }, (_, i) => {
    const oosStart = m + i * b;
    return { inSample: window(mode === 'rolling' ? oosStart - m : 0, oosStart), outOfSample: window(oosStart, oosStart + b) };
  });
}

/** An equity curve: `values[i]` at `times[i]` (ms, ascending), starting from `initial` before the first. */
export interface EquityCurve {
  times: ArrayLike<number>;
  values: ArrayLike<number>;
  initial: number;
}

/**
 * One curve from the folds' out-of-sample curves, chained multiplicatively: it starts from the
 * first fold's `initial`, and each fold's points are scaled by (equity where the chain stands) /
 * (that fold's `initial`), so every fold's returns, its first point's against its `initial`
 * included, apply to the equity the previous fold ended at. Times stay in order and are never
 * duplicated: a fold whose first time is the previous fold's last replaces that point (the
 * replacing point already includes it); a fold starting earlier is refused. Once the chained
 * equity is at or below 0 nothing is left for later returns to apply to: later points hold it.
 * Refuses (VALIDATION_FAILED) no folds, an `initial` that is not > 0, mismatched lengths,
 * non-finite numbers and times that do not ascend.
 */
export function stitchEquity(folds: readonly EquityCurve[]): { times: number[]; values: number[]; initial: number } {
  const first = folds[0];
  if (!first) throw refuse('folds', 'at least one fold is needed');
  const times: number[] = [];
  const values: number[] = [];
  let equity = first.initial;
  folds.forEach((fold, f) => {
    const path = `folds.${f}`;
    if (!(Number.isFinite(fold.initial) && fold.initial > 0)) throw refuse(`${path}.initial`, 'must be a finite number > 0');
    if (fold.times.length !== fold.values.length) throw refuse(path, 'times and values must have the same length');
    const scale = equity > 0 ? equity / fold.initial : 0;
    for (let i = 0; i < fold.times.length; i++) {
      const time = fold.times[i]!;
      const value = fold.values[i]!;
      if (!Number.isFinite(time) || !Number.isFinite(value)) throw refuse(`${path}.${i}`, 'times and values must be finite numbers');
      const last = times.length > 0 ? times[times.length - 1]! : Number.NEGATIVE_INFINITY;
      if (time < last || (time === last && i > 0))
        throw refuse(`${path}.times.${i}`, 'must be after the previous time (and no earlier than where the previous fold ends)');
      if (time === last) {
        times.pop();
        values.pop();
      }
      times.push(time);
      values.push(scale > 0 ? value * scale : equity);
    }
    if (values.length > 0) equity = values[values.length - 1]!;
  });
  return { times, values, initial: first.initial };
}

/** A window and the total return (final / initial - 1) a run over it made. */
export interface WindowReturn extends TimeWindow {
  totalReturn: number;
}

export interface FoldEfficiency {
  inSampleAnnualReturn: number;
  outOfSampleAnnualReturn: number;
  /** Out-of-sample over in-sample annual return; null when the in-sample return is <= 0. */
  efficiency: number | null;
}

/**
 * Walk-forward efficiency (R. Pardo, "The Evaluation and Optimization of Trading Strategies",
 * 2nd ed., Wiley, 2008): the annualized out-of-sample return over the annualized
 * in-sample return of the optimized winner, per fold, and their mean.
 * - Annualized linearly, as Pardo annualizes profit: totalReturn × YEAR_MS (365 days) / window length. Not
 *   compounded: compounding a short window's return to a year exaggerates it without bound; the
 *   linear ratio compares the two windows' returns per unit of time, whatever a year is.
 * - A fold whose in-sample return is <= 0 has no efficiency (null): optimization found nothing to
 *   keep, and a ratio over zero or a loss means nothing. The mean is over the other folds only,
 *   and is null when no fold has an efficiency (or there are no folds).
 * Refuses (VALIDATION_FAILED) a window that does not end after it starts, or a total return that
 * is not a finite number >= -1.
 */
export function walkForwardEfficiency(folds: readonly { inSample: WindowReturn; outOfSample: WindowReturn }[]): {
  efficiency: number | null;
  folds: FoldEfficiency[];
} {
  const annual = (w: WindowReturn, path: string): number => {
    if (!(w.end > w.start)) throw refuse(path, 'the window must end after it starts');
    if (!(Number.isFinite(w.totalReturn) && w.totalReturn >= -1)) throw refuse(`${path}.totalReturn`, 'must be a finite number >= -1');
    return (w.totalReturn * YEAR_MS) / (w.end - w.start);
  };
  const answers = folds.map((fold, f): FoldEfficiency => {
    const inSampleAnnualReturn = annual(fold.inSample, `folds.${f}.inSample`);
    const outOfSampleAnnualReturn = annual(fold.outOfSample, `folds.${f}.outOfSample`);
    return { inSampleAnnualReturn, outOfSampleAnnualReturn, efficiency: inSampleAnnualReturn > 0 ? outOfSampleAnnualReturn / inSampleAnnualReturn : null };
  });
  const counted = answers.flatMap((a) => (a.efficiency === null ? [] : [a.efficiency]));
  return { efficiency: counted.length > 0 ? counted.reduce((a, b) => a + b, 0) / counted.length : null, folds: answers };
}
