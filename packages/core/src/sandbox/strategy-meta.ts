import { z } from 'zod';
import { Timeframe } from '@stratbox/contract';
import { StratboxError } from '../errors/stratbox-error.js';

const Name = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { message: 'Parameter names are identifiers' });
const Description = z.string().max(1000).optional();

const IntParam = z.strictObject({
  type: z.literal('int'),
  default: z.number().int().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  description: Description,
});
const FloatParam = z.strictObject({
  type: z.enum(['float', 'number']),
  default: z.number().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  description: Description,
});
const BoolParam = z.strictObject({ type: z.enum(['bool', 'boolean']), default: z.boolean().optional(), description: Description });
const StringParam = z.strictObject({
  type: z.literal('string'),
  default: z.string().max(1000).optional(),
  maxLength: z.number().int().min(0).max(1000).optional(),
  description: Description,
});
const EnumParam = z.strictObject({
  type: z.literal('enum'),
  values: z.array(z.string().max(200)).min(1).max(100),
  default: z.string().optional(),
  description: Description,
});

/** One entry of `meta.params`: how a string parameter from a request is parsed. */
export const ParamSpecSchema = z.discriminatedUnion('type', [IntParam, FloatParam, BoolParam, StringParam, EnumParam]).superRefine((spec, ctx) => {
  if ('min' in spec && 'max' in spec && spec.min !== undefined && spec.max !== undefined && spec.min > spec.max) {
    ctx.addIssue({ code: 'custom', message: 'min is greater than max' });
  }
  if (spec.default === undefined) return;
  const problem = paramValueProblem(spec as ParamSpec, spec.default);
  if (problem) ctx.addIssue({ code: 'custom', message: `default ${problem}` });
});
export type ParamSpec =
  | z.infer<typeof IntParam>
  | z.infer<typeof FloatParam>
  | z.infer<typeof BoolParam>
  | z.infer<typeof StringParam>
  | z.infer<typeof EnumParam>;

/** The `meta` export of a strategy. Every field is optional; unknown fields are refused, so a typo is caught. */
export const StrategyMetaSchema = z.strictObject({
  timeframe: Timeframe.optional(),
  /** Higher timeframes the strategy reads through `ctx.history` and `ctx.indicators` (`{ timeframe }`). */
  timeframes: z
    .array(Timeframe)
    .max(4)
    .refine((list) => new Set(list).size === list.length, { message: 'Each timeframe may appear once' })
    .optional(),
  warmup: z.number().int().min(0).max(100_000).optional(),
  params: z
    .record(Name, ParamSpecSchema)
    .refine((p) => Object.keys(p).length <= 100, { message: 'At most 100 parameters' })
    .optional(),
  description: z.string().max(10_000).optional(),
  name: z.string().max(200).optional(),
});
export type StrategyMeta = z.infer<typeof StrategyMetaSchema>;

/** A parsed parameter value. */
export type ParamValue = number | boolean | string;

/** Why `value` is not a valid value of a parameter of `spec` (type, bounds, length, options), or null: the one check of a parsed or given value. */
export function paramValueProblem(spec: ParamSpec, value: unknown): string | null {
  switch (spec.type) {
    case 'int':
    case 'float':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a finite number';
      if (spec.type === 'int' && !Number.isSafeInteger(value)) return 'must be an integer';
      if (spec.min !== undefined && value < spec.min) return `must be at least ${spec.min}`;
      if (spec.max !== undefined && value > spec.max) return `must be at most ${spec.max}`;
      return null;
    case 'bool':
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'string':
      if (typeof value !== 'string') return 'must be a string';
      return spec.maxLength !== undefined && value.length > spec.maxLength ? `must be at most ${spec.maxLength} characters` : null;
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value) ? null : `must be one of ${spec.values.join(', ')}`;
  }
}

const INT = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function parseOne(spec: ParamSpec, raw: string): { value?: ParamValue; problem?: string } {
  const text = raw.trim();
  let value: ParamValue;
  switch (spec.type) {
    case 'int':
      if (!INT.test(text)) return { problem: `must be an integer, got "${raw}"` };
      value = Number(text);
      break;
    case 'float':
    case 'number':
      if (!DECIMAL.test(text)) return { problem: `must be a number, got "${raw}"` };
      value = Number(text);
      break;
    case 'bool':
    case 'boolean':
      if (text === 'true' || text === '1') value = true;
      else if (text === 'false' || text === '0') value = false;
      else return { problem: `must be true or false, got "${raw}"` };
      break;
    case 'string':
    case 'enum':
      value = raw;
      break;
  }
  const problem = paramValueProblem(spec, value);
  return problem ? { problem } : { value };
}

/**
 * Parses request parameters (every value a string, docs/spec.md) against `meta.params`: numbers
 * must be written in full (`"10"`, `"0.5"`, `"1e-3"`), booleans are `true/false/1/0`, missing
 * ones take their default. Unknown names, bad values and missing parameters without a default
 * throw `StratboxError('VALIDATION_FAILED')` (400) with one `{ path: 'params.<name>', message }`
 * per problem.
 */
export function parseStrategyParams(metaParams: Record<string, ParamSpec> | undefined, given: Record<string, string>): Record<string, ParamValue> {
  const specs = metaParams ?? {};
  const problems: { path: string; message: string }[] = [];
  const out: Record<string, ParamValue> = {};
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(specs, name)) {
      const known = Object.keys(specs);
      problems.push({ path: `params.${name}`, message: `Unknown parameter; the strategy declares ${known.length ? known.join(', ') : 'none'}` });
    }
  }
  for (const [name, spec] of Object.entries(specs)) {
    const raw = Object.hasOwn(given, name) ? given[name] : undefined;
    if (raw === undefined) {
      if (spec.default === undefined) problems.push({ path: `params.${name}`, message: 'Required: the strategy gives no default' });
      else out[name] = spec.default;
      continue;
    }
    if (typeof raw !== 'string') {
      problems.push({ path: `params.${name}`, message: 'Parameter values are strings' });
      continue;
    }
    const parsed = parseOne(spec, raw);
    if (parsed.problem !== undefined) problems.push({ path: `params.${name}`, message: parsed.problem });
    else out[name] = parsed.value!;
  }
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new StratboxError('VALIDATION_FAILED', `Invalid ${first.path}: ${first.message}`, problems);
  }
  return out;
}

/** Validates a `meta` value read from a strategy; throws VALIDATION_FAILED with `{ path, message }` problems. */
export function parseStrategyMeta(value: unknown): StrategyMeta {
  const result = StrategyMetaSchema.safeParse(value ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => ({
    path: ['meta', ...issue.path.map(String)].join('.'),
    message: issue.code === 'unrecognized_keys' ? `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}` : issue.message,
  }));
  const first = problems[0]!;
  throw new StratboxError('VALIDATION_FAILED', `Invalid strategy ${first.path}: ${first.message}`, problems);
}
