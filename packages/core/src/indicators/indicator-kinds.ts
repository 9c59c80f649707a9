/**
 * The indicators strategies can ask for through `ctx.indicators`, declared once: the guest
 * runtime reads this table for argument defaults, checks and output names, and the host for the
 * same checks before it computes the values (see `createIndicator`). A kind's numeric code is its
 * index in `INDICATOR_KINDS`; new kinds are appended so codes never change.
 */
export const INDICATOR_KINDS = [
  'sma',
  'ema',
  'rsi',
  'atr',
  'bollinger',
  'macd',
  'stochastic',
  'adx',
  'cci',
  'vwap',
  'obv',
  'donchian',
  'highest',
  'lowest',
  'stddev',
  'roc',
  'keltner',
  'psar',
  'supertrend',
] as const;
export type IndicatorKind = (typeof INDICATOR_KINDS)[number];

/** Largest period an indicator accepts. */
export const MAX_INDICATOR_PERIOD = 100_000;

/** One argument of an indicator, after the symbol. */
export interface IndicatorParamDef {
  name: string;
  /** Used when the argument is left out; without a default the argument is required. */
  default?: number;
  /** Whole numbers only (periods). */
  integer: boolean;
  /** Smallest accepted value, inclusive for integers and exclusive for the others. */
  min: number;
  /** Largest accepted value, inclusive. */
  max: number;
}

/** What one kind takes and gives: its arguments in call order and its named outputs (one output: a plain number). */
export interface IndicatorDef {
  params: readonly IndicatorParamDef[];
  outputs: readonly string[];
}

const period = (def?: number): IndicatorParamDef => ({ name: 'period', default: def, integer: true, min: 1, max: MAX_INDICATOR_PERIOD });
const intArg = (name: string, def: number): IndicatorParamDef => ({ name, default: def, integer: true, min: 1, max: MAX_INDICATOR_PERIOD });
const factor = (name: string, def: number, max = 100): IndicatorParamDef => ({ name, default: def, integer: false, min: 0, max });
const BANDS = ['upper', 'middle', 'lower'] as const;

/** Every kind's arguments and outputs (docs/strategy-api.md states each one's convention). */
export const INDICATOR_DEFS: Readonly<Record<IndicatorKind, IndicatorDef>> = {
  sma: { params: [period()], outputs: ['value'] },
  ema: { params: [period()], outputs: ['value'] },
  rsi: { params: [period(14)], outputs: ['value'] },
  atr: { params: [period(14)], outputs: ['value'] },
  bollinger: { params: [period(20), factor('multiplier', 2)], outputs: BANDS },
  macd: { params: [intArg('fast', 12), intArg('slow', 26), intArg('signal', 9)], outputs: ['macd', 'signal', 'histogram'] },
  stochastic: { params: [intArg('kPeriod', 14), intArg('kSmoothing', 3), intArg('dPeriod', 3)], outputs: ['k', 'd'] },
  adx: { params: [period(14)], outputs: ['adx', 'plusDi', 'minusDi'] },
  cci: { params: [period(20)], outputs: ['value'] },
  vwap: { params: [], outputs: ['value'] },
  obv: { params: [], outputs: ['value'] },
  donchian: { params: [period(20)], outputs: BANDS },
  highest: { params: [period()], outputs: ['value'] },
  lowest: { params: [period()], outputs: ['value'] },
  stddev: { params: [period(20)], outputs: ['value'] },
  roc: { params: [period(10)], outputs: ['value'] },
  keltner: { params: [period(20), factor('multiplier', 2), intArg('atrPeriod', 10)], outputs: BANDS },
  psar: { params: [factor('step', 0.02, 1), factor('max', 0.2, 1)], outputs: ['value'] },
  supertrend: { params: [period(10), factor('multiplier', 3)], outputs: ['value', 'direction'] },
};

/** A request for one indicator series: its kind and its arguments in `INDICATOR_DEFS` order, defaults filled in. */
export interface IndicatorSpec {
  kind: IndicatorKind;
  args: readonly number[];
}

/** Why one argument is not acceptable, or null. */
export function indicatorArgProblem(kind: string, def: IndicatorParamDef, value: unknown): string | null {
  const ok = typeof value === 'number' && (def.integer ? Number.isInteger(value) && value >= def.min : value > def.min) && value <= def.max;
  if (ok) return null;
  const range = def.integer ? `an integer from ${def.min} to ${def.max}` : `a number in (${def.min}, ${def.max}]`;
  return `${kind} ${def.name} must be ${range}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`;
}

/** Why a spec is not acceptable (unknown kind, wrong argument count or range), or null when it is. */
export function indicatorSpecProblem(spec: { kind: string; args: readonly unknown[] }): string | null {
  const def = (INDICATOR_DEFS as Record<string, IndicatorDef | undefined>)[spec.kind];
  if (def === undefined || !Object.hasOwn(INDICATOR_DEFS, spec.kind)) return `unknown indicator ${JSON.stringify(spec.kind)}`;
  if (spec.args.length !== def.params.length) return `${spec.kind} takes ${def.params.length} arguments, got ${spec.args.length}`;
  for (let i = 0; i < def.params.length; i++) {
    const problem = indicatorArgProblem(spec.kind, def.params[i]!, spec.args[i]);
    if (problem) return problem;
  }
  if (spec.kind === 'macd' && (spec.args[0] as number) >= (spec.args[1] as number)) return 'macd fast must be shorter than slow';
  return null;
}

/** Number of output series of a kind (Bollinger has upper, middle and lower). */
export function indicatorOutputs(kind: IndicatorKind): number {
  return INDICATOR_DEFS[kind].outputs.length;
}
