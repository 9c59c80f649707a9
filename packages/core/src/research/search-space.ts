import { createRandom } from '../engine/guest/determinism.js';
import { type ParamSpec, type ParamValue, paramValueProblem } from '../sandbox/strategy-meta.js';
import { type ValidationProblem, validationFailed } from '../util/validate.js';

/*
 * Parameter search spaces of an optimization: which values each searched parameter takes. Plain
 * functions over plain data, no I/O, no clock, no `Math.random`.
 *
 * Guarantees:
 * - `checkSearchSpace` accepts a space only if every value it can produce is one a backtest of the
 *   strategy accepts (the rules of `parseStrategyParams`: type, min/max, integers, enum values,
 *   string length); it reports every problem at once, one `{ path: 'searchSpace.<name>...' }` each.
 * - A range `{ min, max, step }` is the values min + i × step for i = 0, 1, ... up to max (a value
 *   past max by less than 1e-9 step, rounding, still counts, as max), each rounded to the decimals
 *   of min and step: 0 to 1 by 0.1 is exactly 0, 0.1, ..., 1 (0.3, never 0.30000000000000004).
 *   Computed by index, without accumulating: no drift, and no value is ever outside [min, max].
 * - The grid is the cartesian product in the order of the space's keys, the last parameter varying
 *   fastest: point 0 takes every parameter's first value. `gridPoint` addresses it by index
 *   without building it; `gridPoints` refuses grids above a given size before building anything.
 * - `randomPoints` is deterministic (the sandbox's seeded sfc32, `createRandom`): the same space,
 *   count and seed give the same points in the same order. It never repeats a combination; each
 *   parameter is uniform over its values. A count at or above the grid's size answers the whole
 *   grid, in a seeded order.
 * - Functions other than `checkSearchSpace` expect a space it accepted.
 */

/** A parameter searched over listed values. */
export interface ValueList {
  values: ParamValue[];
}

/** A numeric parameter searched over min, min + step, ... <= max (integers for an `int` parameter). */
export interface ValueRange {
  min: number;
  max: number;
  step: number;
}

/** Parameter name to the values searched; parameters left out keep their default or a fixed value. */
export type SearchSpace = Record<string, ValueList | ValueRange>;

/** One combination: a value for every parameter of the space. */
export type SearchPoint = Record<string, ParamValue>;

export interface Grid {
  /** Each parameter's values, in grid order. */
  values: Record<string, ParamValue[]>;
  /** Number of combinations: the product of the lists' lengths. */
  size: number;
}

/** A value past max by less than this many steps (rounding) still belongs to a range. */
const RANGE_TOLERANCE = 1e-9;
/** A step must be at least this fraction of the range's largest magnitude, or consecutive values could be equal numbers. */
const MIN_RELATIVE_STEP = 1e-12;

/**
 * Checks `space` against the strategy's `meta.params`; throws `StratboxError('VALIDATION_FAILED')`
 * with one `{ path, message }` per problem (`searchSpace.fast.step`, `searchSpace.mode.values.2`).
 */
export function checkSearchSpace(space: SearchSpace, metaParams: Record<string, ParamSpec> | undefined): void {
  const specs = metaParams ?? {};
  const problems: ValidationProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path: `searchSpace${path}`, message });
  const names = Object.keys(space);
  if (names.length === 0) problem('', 'Name at least one parameter to search');
  for (const name of names) {
    const search: unknown = space[name];
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (spec === undefined) {
      const known = Object.keys(specs);
      problem(`.${name}`, `Unknown parameter; the strategy declares ${known.length ? known.join(', ') : 'none'}`);
      continue;
    }
    const kind = shapeOf(search);
    if (kind === 'list') checkList((search as ValueList).values, spec, (path, message) => problem(`.${name}.values${path}`, message));
    else if (kind === 'range') checkRange(search as ValueRange, spec, (field, message) => problem(`.${name}.${field}`, message));
    else problem(`.${name}`, 'Must be { values: [...] } or { min, max, step }');
  }
  if (problems.length > 0) throw validationFailed(problems);
}

/** A list has `values`, a range some of min, max and step; anything else (both, neither, not an object) is neither. */
function shapeOf(search: unknown): 'list' | 'range' | null {
  if (typeof search !== 'object' || search === null) return null;
  const list = 'values' in search;
  const range = 'min' in search || 'max' in search || 'step' in search;
  return list && !range ? 'list' : range && !list ? 'range' : null;
}

/** A value in a message: numbers as written (NaN too), anything else as JSON (strings quoted). */
function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

function checkList(values: unknown, spec: ParamSpec, problem: (path: string, message: string) => void): void {
  if (!Array.isArray(values) || values.length === 0) return problem('', 'Must be a non-empty list');
  const seen = new Set<unknown>();
  values.forEach((value, i) => {
    const invalid = paramValueProblem(spec, value);
    if (invalid) problem(`.${i}`, `${invalid}, got ${shown(value)}`);
    else if (seen.has(value)) problem(`.${i}`, 'Repeats an earlier value');
    seen.add(value);
  });
}

function checkRange(range: ValueRange, spec: ParamSpec, problem: (field: keyof ValueRange, message: string) => void): void {
  if (spec.type !== 'int' && spec.type !== 'float' && spec.type !== 'number') {
    return problem('min', `A range needs a numeric parameter; list the values of this ${spec.type} parameter instead`);
  }
  const { min, max, step } = range;
  for (const [field, value] of [
    ['min', min],
    ['max', max],
  ] as const) {
    const invalid = paramValueProblem(spec, value);
    if (invalid) problem(field, `${invalid}, got ${shown(value)}`);
  }
  if (typeof step !== 'number' || !Number.isFinite(step) || step <= 0) return problem('step', 'Must be a number greater than 0');
  if (spec.type === 'int' && !Number.isSafeInteger(step)) return problem('step', 'Must be an integer');
  if (!Number.isFinite(min) || !Number.isFinite(max)) return;
  if (min > max) problem('max', `Must be at least min (${min})`);
  else if (step < MIN_RELATIVE_STEP * Math.max(Math.abs(min), Math.abs(max))) problem('step', 'Too small for values of this size');
}

/** Each parameter's values and the grid's size; refuses (VALIDATION_FAILED) a grid of more than `maxSize` combinations. */
export function gridPoints(space: SearchSpace, maxSize: number): Grid {
  const size = gridSize(space);
  if (size > maxSize) {
    const message = `The grid has ${size > Number.MAX_SAFE_INTEGER ? 'more than 2^53' : size} combinations; at most ${maxSize} are allowed`;
    throw validationFailed([{ path: 'searchSpace', message }]);
  }
  const values: Record<string, ParamValue[]> = {};
  for (const [name, search] of Object.entries(space)) values[name] = Array.from({ length: valueCount(search) }, (_, i) => valueAt(search, i));
  return { values, size };
}

/** The number of combinations of the grid (may exceed 2^53, then inexact). */
export function gridSize(space: SearchSpace): number {
  return Object.values(space).reduce((size, search) => size * valueCount(search), 1);
}

/** The `index`-th combination of the grid (see the order above), in O(parameters). RangeError outside 0..size-1. */
export function gridPoint(space: SearchSpace, index: number): SearchPoint {
  const size = gridSize(space);
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(index) || index < 0 || index >= size) {
    throw new RangeError(`Grid index ${index} is not in 0..${size - 1}`);
  }
  const digits: number[] = [];
  let rest = index;
  for (const search of Object.values(space).reverse()) {
    const count = valueCount(search);
    digits.unshift(rest % count);
    rest = Math.floor(rest / count);
  }
  return pointAt(space, digits);
}

/**
 * `count` distinct combinations drawn with a generator seeded by `seed` (an unsigned 32-bit
 * integer), or the whole grid in a seeded order when `count` is at least its size.
 */
export function randomPoints(space: SearchSpace, count: number, seed: number): SearchPoint[] {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`count must be a whole number >= 1, got ${count}`);
  const random = createRandom(seed);
  const size = gridSize(space);
  if (size <= 2 * count) {
    // Few enough combinations: the first draws of a Fisher-Yates shuffle of the grid's indexes.
    const order = Array.from({ length: size }, (_, i) => i);
    const taken = Math.min(count, size);
    for (let i = 0; i < taken; i++) {
      const j = i + randomIndex(random, size - i);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    return order.slice(0, taken).map((index) => gridPoint(space, index));
  }
  // Many more combinations than draws: each parameter uniform, a repeat drawn again (under 2 tries a point).
  const counts = Object.values(space).map(valueCount);
  const seen = new Set<string>();
  const points: SearchPoint[] = [];
  while (points.length < count) {
    const digits = counts.map((n) => randomIndex(random, n));
    const key = digits.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    points.push(pointAt(space, digits));
  }
  return points;
}

/** Uniform in 0..n-1; two draws (53 bits) when one draw's 32 bits cannot reach every index. */
function randomIndex(random: () => number, n: number): number {
  const u = n <= 2 ** 32 ? random() : random() + random() / 2 ** 32;
  return Math.min(n - 1, Math.floor(u * n));
}

function pointAt(space: SearchSpace, digits: readonly number[]): SearchPoint {
  const point: SearchPoint = {};
  Object.entries(space).forEach(([name, search], i) => {
    point[name] = valueAt(search, digits[i]!);
  });
  return point;
}

function valueCount(search: ValueList | ValueRange): number {
  if ('values' in search) return search.values.length;
  return Math.floor((search.max - search.min) / search.step + RANGE_TOLERANCE) + 1;
}

function valueAt(search: ValueList | ValueRange, i: number): ParamValue {
  if ('values' in search) return search.values[i]!;
  const { min, max, step } = search;
  const decimals = Math.max(decimalsOf(min), decimalsOf(step));
  const value = min + i * step;
  return Math.min(max, decimals <= 100 ? Number(value.toFixed(decimals)) : value);
}

/** Digits after the point of the shortest decimal that reads back as `x`: 0.1 → 1, 2.5e-7 → 8, 300 → 0. */
function decimalsOf(x: number): number {
  const [mantissa = '', exponent = '0'] = String(x).split('e');
  return Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - Number(exponent));
}
