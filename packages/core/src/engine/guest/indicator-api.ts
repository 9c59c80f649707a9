import { INDICATOR_DEFS, INDICATOR_KINDS, indicatorArgProblem, type IndicatorKind } from '../../indicators/indicator-kinds.js';
import { freeze } from './intrinsics.js';

/** One parsed `ctx.indicators.<kind>(symbol, ...args, options?)` call: arguments with defaults filled in, and the timeframe index. */
export interface IndicatorCall {
  args: number[];
  tf: number;
}

/**
 * Parses the arguments after the symbol: positional numbers in `INDICATOR_DEFS` order (left-out
 * ones take their defaults), optionally followed by an options object (`{ timeframe: '4h' }`),
 * which may also come early (`rsi(symbol, { timeframe: '4h' })`). Throws the strategy-facing
 * TypeError for a bad argument. Writes into `out`, which the caller reuses.
 */
export function parseIndicatorCall(
  kind: IndicatorKind,
  rest: ArrayLike<unknown>,
  timeframeIndex: (options: unknown) => number,
  out: IndicatorCall,
): IndicatorCall {
  const params = INDICATOR_DEFS[kind].params;
  let n = rest.length;
  const last = n > 0 ? rest[n - 1] : undefined;
  out.tf = 0;
  if (last !== null && typeof last === 'object') {
    out.tf = timeframeIndex(last);
    n--;
  }
  if (n > params.length) throw new TypeError(`${kind} takes at most ${params.length} arguments after the symbol, and an options object`);
  out.args.length = params.length;
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    const v = i < n && rest[i] !== undefined ? rest[i] : p.default;
    const problem = indicatorArgProblem(kind, p, v);
    if (problem !== null) throw new TypeError(problem);
    out.args[i] = v as number;
  }
  if (kind === 'macd' && out.args[0]! >= out.args[1]!) throw new TypeError('macd fast must be shorter than slow');
  return out;
}

/**
 * Reads one indicator's outputs (as many as the kind has) as of now, into `values`; answers the
 * series' id when the values stay the same until `stamp()` changes (then a multi-output answer
 * is one object per stamp), else -1.
 */
export type ReadIndicator = (code: number, symbol: unknown, call: IndicatorCall, values: number[]) => number;

/**
 * The `ctx.indicators` object: one method per kind of `INDICATOR_DEFS`, answering a number for a
 * one-output kind and a frozen object of named outputs otherwise (the same object for repeated
 * calls while `stamp()` answers the same). `fast` replaces the methods it names (the backtest's
 * array-read paths for the common calls).
 */
export function createIndicatorApi(
  read: ReadIndicator,
  timeframeIndex: (options: unknown) => number,
  fast: Record<string, unknown> = {},
  stamp: () => number = () => Number.NaN,
) {
  const api: Record<string, unknown> = {};
  const call: IndicatorCall = { args: [], tf: 0 };
  const values: number[] = [];
  const memo: Array<{ at: number; v: unknown } | undefined> = [];
  for (let code = 0; code < INDICATOR_KINDS.length; code++) {
    const kind = INDICATOR_KINDS[code]!;
    const names = INDICATOR_DEFS[kind].outputs;
    api[kind] =
      fast[kind] ??
      ((symbol: unknown, ...rest: unknown[]) => {
        const id = read(code, symbol, parseIndicatorCall(kind, rest, timeframeIndex, call), values);
        if (names.length === 1) return values[0];
        const at = stamp();
        const known = id >= 0 ? memo[id] : undefined;
        if (known !== undefined && known.at === at) return known.v;
        const out: Record<string, number> = {};
        for (let o = 0; o < names.length; o++) out[names[o]!] = values[o]!;
        const v = freeze(out);
        if (id >= 0) memo[id] = { at, v };
        return v;
      });
  }
  return freeze(api);
}
