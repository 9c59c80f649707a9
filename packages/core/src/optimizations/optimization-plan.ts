import { OPTIMIZATION_MAX_TRIALS } from '@stratbox/contract';
import { checkSearchSpace, gridPoints, randomPoints, type SearchPoint, type SearchSpace } from '../research/search-space.js';
import { type ValidationFold, validationWindows } from '../research/walk-forward.js';
import type { ParamSpec } from '../sandbox/strategy-meta.js';
import type { OptimizationSpec } from '../ports/store-optimizations.js';
import { validationFailed } from '../util/validate.js';

const DAY_MS = 86_400_000;

/**
 * What an optimization runs: the parameter sets it searches (`points`, the same in every fold), the
 * validation folds (none without validation) and the range. Trial `index` is `fold × points.length
 * + point` (fold 0 without validation): `trialsTotal` indexes in all. Plain data, computed the same
 * from the same spec, by the service at create and by any worker that (re)runs it.
 */
export interface OptimizationPlan {
  points: SearchPoint[];
  folds: ValidationFold[];
  /** The whole range `[start, end)`: the start date's midnight to the day after the end date (UTC). */
  range: { start: number; end: number };
  trialsTotal: number;
}

/** The range of a spec in epoch ms, end exclusive (the end date is a whole day). */
export function rangeOf(spec: Pick<OptimizationSpec, 'startDate' | 'endDate'>): { start: number; end: number } {
  return { start: Date.parse(`${spec.startDate}T00:00:00.000Z`), end: Date.parse(`${spec.endDate}T00:00:00.000Z`) + DAY_MS };
}

/**
 * Plans the spec's search: checks the search space against `metaParams` and against the fixed
 * params (a parameter is either fixed or searched), draws the points, cuts the folds. Throws
 * VALIDATION_FAILED with `{ path, message }` details (paths under `body.`).
 */
export function planOptimization(spec: OptimizationSpec, metaParams: Record<string, ParamSpec> | undefined, timeframeMs: number): OptimizationPlan {
  const space = spec.searchSpace as SearchSpace;
  try {
    checkSearchSpace(space, metaParams);
  } catch (error) {
    throw underBody(error);
  }
  const both = Object.keys(space).filter((name) => Object.hasOwn(spec.params, name));
  if (both.length > 0) {
    throw validationFailed(both.map((name) => ({ path: `body.params.${name}`, message: 'Searched in searchSpace: a parameter is either fixed or searched' })));
  }
  const points = spec.method.kind === 'grid' ? gridAll(space) : randomPoints(space, spec.method.count, spec.method.seed);
  const range = rangeOf(spec);
  let folds: ValidationFold[];
  try {
    folds = validationWindows(range, spec.validation.kind === 'none' ? { kind: 'none' } : spec.validation, timeframeMs);
  } catch (error) {
    throw underBody(error, 'validation');
  }
  return { points, folds, range, trialsTotal: points.length * Math.max(1, folds.length) };
}

function gridAll(space: SearchSpace): SearchPoint[] {
  try {
    const grid = gridPoints(space, OPTIMIZATION_MAX_TRIALS);
    const names = Object.keys(grid.values);
    const points: SearchPoint[] = [];
    const digits = names.map(() => 0);
    for (let i = 0; i < grid.size; i++) {
      const point: SearchPoint = {};
      names.forEach((name, k) => {
        point[name] = grid.values[name]![digits[k]!]!;
      });
      points.push(point);
      for (let k = names.length - 1; k >= 0; k--) {
        if (++digits[k]! < grid.values[names[k]!]!.length) break;
        digits[k] = 0;
      }
    }
    return points;
  } catch (error) {
    throw underBody(error);
  }
}

/** Re-roots a refusal's detail paths under `body.` (`searchSpace.fast` → `body.searchSpace.fast`; `scheme.folds` → `body.validation.folds`). */
function underBody(error: unknown, replaceRoot?: string): unknown {
  const details = (error as { details?: unknown }).details;
  if (!Array.isArray(details)) return error;
  const problems = details.map((d: { path: string; message: string }) => {
    const path = replaceRoot ? `${replaceRoot}${d.path.includes('.') ? d.path.slice(d.path.indexOf('.')) : ''}` : d.path;
    return { path: `body.${path}`, message: d.message };
  });
  return validationFailed(problems);
}

/** The params of one trial as a backtest takes them: the fixed ones and the point's, as strings. */
export function trialParams(spec: Pick<OptimizationSpec, 'params'>, point: SearchPoint): Record<string, string> {
  const params: Record<string, string> = { ...spec.params };
  for (const [name, value] of Object.entries(point)) params[name] = String(value);
  return params;
}

/** The fold (null without validation) and point of trial `index`. */
export function trialSlot(plan: OptimizationPlan, index: number): { fold: number | null; point: number } {
  const fold = Math.floor(index / plan.points.length);
  return { fold: plan.folds.length === 0 ? null : fold, point: index % plan.points.length };
}
