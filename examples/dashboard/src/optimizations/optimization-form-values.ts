import type { CreateOptimizationBody, OptimizationObjective } from '@stratbox/client';
import { type BacktestFormValues, backtestBody, initialBacktestValues } from '../backtests/backtest-form-values.js';
import type { ParamSpec } from '../strategies/read-strategy-meta.js';

/** How one strategy parameter takes part: one value for every trial, or searched. Every field a string, as inputs hold them. */
export interface ParamChoice {
  mode: 'fixed' | 'search';
  /** A numeric parameter's range: min, min + step, ... up to max. */
  min: string;
  max: string;
  step: string;
  /** Any other parameter's values, separated by commas. */
  list: string;
}

export type ValidationKind = 'none' | 'holdout' | 'walk-forward';

/** The optimization form as typed: the run's fields (their `params` are the fixed values), then the search. */
export interface OptimizationFormValues {
  run: BacktestFormValues;
  /** Per parameter of `meta.params` (and those the page could not read). */
  choices: Record<string, ParamChoice>;
  method: 'grid' | 'random';
  count: string;
  seed: string;
  objective: OptimizationObjective;
  minTrades: string;
  /** A fraction: 0.3 is 30%. */
  maxDrawdown: string;
  validation: ValidationKind;
  holdoutFraction: string;
  folds: string;
  foldMode: 'rolling' | 'anchored';
  inSampleFraction: string;
}

export const OBJECTIVES: Array<{ value: OptimizationObjective; label: string }> = [
  { value: 'sharpe', label: 'Sharpe ratio' },
  { value: 'sortino', label: 'Sortino ratio' },
  { value: 'calmar', label: 'Calmar ratio' },
  { value: 'totalReturn', label: 'Total return' },
  { value: 'cagr', label: 'CAGR' },
  { value: 'profitFactor', label: 'Profit factor' },
  { value: 'expectancy', label: 'Expectancy' },
  { value: 'winRate', label: 'Win rate' },
];

/** The objective's name as the pages write it. */
export function objectiveLabel(objective: OptimizationObjective): string {
  return OBJECTIVES.find((o) => o.value === objective)?.label ?? objective;
}

/** True for a parameter searched by a range (min, max, step); any other is searched by a list of values. */
export function isNumeric(spec: ParamSpec | undefined): boolean {
  return spec?.type === 'int' || spec?.type === 'float' || spec?.type === 'number';
}

/** A parameter's first choice: fixed at its default; its search starts at its bounds (numbers) or its every value (enum, bool). */
export function initialChoice(spec: ParamSpec | undefined): ParamChoice {
  const choice: ParamChoice = { mode: 'fixed', min: '', max: '', step: '', list: '' };
  if (!spec) return choice;
  if (spec.type === 'int' || spec.type === 'float' || spec.type === 'number') {
    const at = (bound: number | undefined) => String(bound ?? spec.default ?? '');
    return { ...choice, min: at(spec.min), max: at(spec.max), step: spec.type === 'int' ? '1' : '' };
  }
  if (spec.type === 'enum') return { ...choice, list: spec.values.join(', ') };
  if (spec.type === 'bool' || spec.type === 'boolean') return { ...choice, list: 'true, false' };
  return { ...choice, list: spec.type === 'string' ? (spec.default ?? '') : '' };
}

/** A new form: the backtest form's start (90 days to yesterday, the parameters' defaults), every parameter fixed, a grid on Sharpe without validation. */
export function initialOptimizationValues(
  strategyId: string,
  specs: Record<string, ParamSpec>,
  unreadable: string[] = [],
  now = Date.now(),
): OptimizationFormValues {
  const names = [...Object.keys(specs), ...unreadable];
  return {
    run: initialBacktestValues(strategyId, specs, now),
    choices: Object.fromEntries(names.map((name) => [name, initialChoice(specs[name])])),
    method: 'grid',
    count: '50',
    seed: '1',
    objective: 'sharpe',
    minTrades: '',
    maxDrawdown: '',
    validation: 'none',
    holdoutFraction: '0.25',
    folds: '3',
    foldMode: 'rolling',
    inSampleFraction: '0.5',
  };
}

/** The items of a comma-separated list, trimmed, empty ones left out. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A listed value typed as the parameter is (a parameter the page could not read: a number or boolean when it reads as one). */
function typedValue(text: string, spec: ParamSpec | undefined): number | boolean | string {
  const type = spec?.type;
  if (type === 'int' || type === 'float' || type === 'number') return Number(text);
  if (type === 'bool' || type === 'boolean' || (!spec && (text === 'true' || text === 'false')))
    return text === 'true' ? true : text === 'false' ? false : text;
  if (!spec && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}

/** A number field: empty is left out (the API's default applies); anything else is sent as typed, for the service to check. */
function optionalNumber(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

/**
 * How many values a searched parameter takes, as the service counts them (a range: min + i × step
 * up to max, a rounding past max by under 1e-9 step still in); null when the fields cannot say yet.
 */
export function valueCount(choice: ParamChoice, spec: ParamSpec | undefined): number | null {
  if (!isNumeric(spec)) {
    const items = splitList(choice.list);
    return items.length > 0 ? items.length : null;
  }
  const [min, max, step] = [choice.min, choice.max, choice.step].map((t) => (t.trim() === '' ? Number.NaN : Number(t))) as [number, number, number];
  if (![min, max, step].every(Number.isFinite) || step <= 0 || max < min) return null;
  return Math.floor((max - min) / step + 1e-9) + 1;
}

export interface TrialCount {
  /** Parameter sets tried per fold (the grid's size, or the random draws); null when unknown. */
  combinations: number | null;
  /** Searches run: the walk-forward's folds, else 1; null when the folds field is not a whole number. */
  folds: number | null;
  /** combinations × folds: `trialsTotal` of the optimization the form would create; null when unknown. */
  total: number | null;
}

/** The number of trials the form asks for, counted as the service does (combinations × folds). */
export function trialCount(values: OptimizationFormValues, specs: Record<string, ParamSpec>): TrialCount {
  const searched = Object.entries(values.choices).filter(([, c]) => c.mode === 'search');
  const counts = searched.map(([name, c]) => valueCount(c, specs[name]));
  let combinations: number | null = searched.length > 0 && counts.every((n) => n !== null) ? counts.reduce<number>((a, n) => a * (n as number), 1) : null;
  if (combinations !== null && values.method === 'random') {
    const draws = Number(values.count);
    combinations = Number.isSafeInteger(draws) && draws >= 1 ? Math.min(draws, combinations) : null;
  }
  const folds =
    values.validation === 'walk-forward' ? (Number.isSafeInteger(Number(values.folds)) && Number(values.folds) >= 1 ? Number(values.folds) : null) : 1;
  return { combinations, folds, total: combinations !== null && folds !== null ? combinations * folds : null };
}

/**
 * The body of `POST /api/optimizations` for the form: the backtest body of the run's fields with
 * only the fixed parameters in `params`, the searched ones in `searchSpace`. Nothing is checked
 * here: the service checks every field and its problems come back next to the fields.
 */
export function optimizationBody(values: OptimizationFormValues, specs: Record<string, ParamSpec>): CreateOptimizationBody {
  const searched = Object.entries(values.choices).filter(([, c]) => c.mode === 'search');
  const run = backtestBody(values.run);
  const params = Object.fromEntries(Object.entries(run.params).filter(([name]) => values.choices[name]?.mode !== 'search'));
  const searchSpace = Object.fromEntries(
    searched.map(([name, c]) => {
      const spec = specs[name];
      if (isNumeric(spec)) return [name, { min: Number(c.min), max: Number(c.max), step: Number(c.step) }];
      return [name, { values: splitList(c.list).map((item) => typedValue(item, spec)) }];
    }),
  );
  const minTrades = optionalNumber(values.minTrades);
  const maxDrawdown = optionalNumber(values.maxDrawdown);
  return {
    ...run,
    params,
    searchSpace,
    method: values.method === 'grid' ? { kind: 'grid' } : { kind: 'random', count: Number(values.count), ...optional('seed', optionalNumber(values.seed)) },
    objective: values.objective,
    constraints: { ...optional('minTrades', minTrades), ...optional('maxDrawdown', maxDrawdown) },
    validation: validationBody(values),
  };
}

function optional<K extends string>(key: K, value: number | undefined): { [k in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: number };
}

function validationBody(values: OptimizationFormValues): CreateOptimizationBody['validation'] {
  switch (values.validation) {
    case 'none':
      return { kind: 'none' };
    case 'holdout':
      return { kind: 'holdout', ...optional('fraction', optionalNumber(values.holdoutFraction)) };
    case 'walk-forward':
      return {
        kind: 'walk-forward',
        folds: Number(values.folds),
        mode: values.foldMode,
        ...optional('inSampleFraction', optionalNumber(values.inSampleFraction)),
      };
  }
}

/**
 * The service's problems at `path` and under it (`searchSpace.mode.values.2`), for one field: a
 * deeper one says where (`value 3: Repeats an earlier value`).
 */
export function problemsAt(fields: Record<string, string[]>, path: string): string[] | undefined {
  const found = Object.entries(fields).flatMap(([at, messages]) =>
    at === path ? messages : at.startsWith(`${path}.`) ? messages.map((m) => `${where(at.slice(path.length + 1))}: ${m}`) : [],
  );
  return found.length > 0 ? found : undefined;
}

/** `2` (a list index) as `value 3`; any other path as it is. */
function where(rest: string): string {
  return /^\d+$/.test(rest) ? `value ${Number(rest) + 1}` : rest;
}
