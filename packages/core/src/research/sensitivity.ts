import type { OptimizationResults } from '@stratbox/contract';

/*
 * Parameter sensitivity of an optimization: how the objective varies with one parameter, and with
 * each pair of parameters (the data of a heatmap). Pure functions over plain data.
 *
 * Guarantees, for grid and random search alike:
 * - Only feasible trials with a finite objective count; the others are ignored.
 * - The values along an axis are exactly those listed for the parameter, in the order given (the
 *   grid's), whether or not a trial ran with them. A value no counted trial ran with has
 *   `best: null` (and `mean: null`, `trials: 0`): a sparse random search leaves holes, not zeros.
 * - A trial is matched to a value by the string its `params` carry, as listed (`"10"` is not
 *   `"10.0"`); a trial whose value is not listed, or that lacks the parameter, counts for no
 *   value of that parameter (it still counts for the others). A value listed twice counts at its
 *   first place; the second stays empty.
 * - `best` is the largest objective of the counted trials with that value (or pair of values);
 *   `mean` their mean; `trials` how many there are. Nothing depends on the trials' order (but
 *   the last bits of a mean, the rounding of its sum).
 * - Pairs are (i, j) with i < j in the order of `searched`, over its first
 *   MAX_SENSITIVITY_PAIR_PARAMS parameters, leaving out a pair whose heatmap would have more than
 *   MAX_SENSITIVITY_PAIR_CELLS cells: at most 45 pairs of at most 10,000 cells each.
 */

/** One parameter's sensitivity (the contract's `ParamSensitivity`). */
export type ParamSensitivityResult = OptimizationResults['sensitivity']['params'][number];
/** One pair's heatmap (the contract's `PairSensitivity`). */
export type PairSensitivityResult = OptimizationResults['sensitivity']['pairs'][number];

/** What sensitivity needs of a trial. */
export interface SensitivityTrial {
  params: Record<string, string>;
  objective: number | null;
  feasible: boolean;
}

/** A searched parameter and its values in grid order, as strings the way trials' `params` carry them. */
export interface SearchedParam {
  name: string;
  values: readonly string[];
}

/** Pairs are formed over at most this many parameters (the first ones): C(10, 2) = 45 heatmaps. */
export const MAX_SENSITIVITY_PAIR_PARAMS = 10;
/** The most cells a pair's heatmap may have (x values times y values, e.g. 100 x 100); larger pairs are left out. */
export const MAX_SENSITIVITY_PAIR_CELLS = 10_000;

/** Per searched parameter (in the order given) and per listed value: the best and mean objective of the feasible trials with that value, and their count. */
export function paramSensitivity(trials: readonly SensitivityTrial[], searched: readonly SearchedParam[]): ParamSensitivityResult[] {
  const counted = countedTrials(trials, searched);
  return searched.map((param, p) => {
    const best: (number | null)[] = param.values.map(() => null);
    const sums = new Float64Array(param.values.length);
    const counts = new Uint32Array(param.values.length);
    for (const { objective, positions } of counted) {
      const v = positions[p]!;
      if (v < 0) continue;
      best[v] = Math.max(best[v] ?? objective, objective);
      sums[v] = sums[v]! + objective;
      counts[v] = counts[v]! + 1;
    }
    return {
      param: param.name,
      values: param.values.map((value, v) => ({ value, best: best[v]!, mean: counts[v]! > 0 ? sums[v]! / counts[v]! : null, trials: counts[v]! })),
    };
  });
}

/**
 * Per pair of searched parameters (i < j in the order given, over the first
 * MAX_SENSITIVITY_PAIR_PARAMS): x the first one's listed values, y the second one's, and
 * `best[a][b]` the largest objective of the feasible trials with x[a] and y[b], null when none.
 * A pair with more than MAX_SENSITIVITY_PAIR_CELLS cells (x.length times y.length) is left out
 * (the others keep their order), so the answer holds at most 45 x 10,000 cells whatever the
 * search: a random search over parameters of 1,000 values each has 1- but no 2-parameter
 * sensitivity for them. Cost: O(trials x pairs + cells).
 */
export function pairSensitivity(trials: readonly SensitivityTrial[], searched: readonly SearchedParam[]): PairSensitivityResult[] {
  const axes = searched.slice(0, MAX_SENSITIVITY_PAIR_PARAMS);
  const counted = countedTrials(trials, axes);
  const pairs: PairSensitivityResult[] = [];
  for (let i = 0; i < axes.length; i++) {
    for (let j = i + 1; j < axes.length; j++) {
      const x = axes[i]!;
      const y = axes[j]!;
      if (x.values.length * y.values.length > MAX_SENSITIVITY_PAIR_CELLS) continue;
      const best: (number | null)[][] = x.values.map(() => y.values.map(() => null));
      for (const { objective, positions } of counted) {
        const a = positions[i]!;
        const b = positions[j]!;
        if (a < 0 || b < 0) continue;
        const row = best[a]!;
        row[b] = Math.max(row[b] ?? objective, objective);
      }
      pairs.push({ params: [x.name, y.name], x: [...x.values], y: [...y.values], best });
    }
  }
  return pairs;
}

/** The trials that count, each with the position of its value in every parameter's list (-1: not listed). */
function countedTrials(trials: readonly SensitivityTrial[], searched: readonly SearchedParam[]): { objective: number; positions: Int32Array }[] {
  const lookups = searched.map((param) => {
    const positions = new Map<string, number>();
    param.values.forEach((value, v) => {
      if (!positions.has(value)) positions.set(value, v);
    });
    return positions;
  });
  const counted: { objective: number; positions: Int32Array }[] = [];
  for (const trial of trials) {
    const objective = trial.objective;
    if (!trial.feasible || objective === null || !Number.isFinite(objective)) continue;
    const positions = new Int32Array(searched.length);
    searched.forEach((param, p) => {
      const value = Object.hasOwn(trial.params, param.name) ? trial.params[param.name] : undefined;
      positions[p] = value === undefined ? -1 : (lookups[p]!.get(value) ?? -1);
    });
    counted.push({ objective, positions });
  }
  return counted;
}
