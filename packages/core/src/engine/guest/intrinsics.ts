/*
 * Built-ins the guest runtime uses, captured when the runtime script is evaluated, before the
 * strategy's module runs: a strategy that replaces `JSON.stringify` or `Object.freeze` changes
 * its own code, never the runtime's.
 */
export const freeze = Object.freeze;
export const defineProperty = Object.defineProperty;
export const keys = Object.keys;
export const jsonStringify = JSON.stringify;
export const jsonParse = JSON.parse;
export const Str = String;
export const F64 = Float64Array;

/*
 * Numbers and Math.abs for the hot paths (candle loop, orders, fills): a module variable is one
 * closure read, where `Number.NaN` or `Math.abs` is, on every use in QuickJS, a lookup of a global
 * and then of its property (no inline caches). Captured here, a strategy's replacement of
 * `Math.abs` cannot reach the runtime either.
 */
export const NAN = Number.NaN;
export const INF = Number.POSITIVE_INFINITY;
export const NEG_INF = Number.NEGATIVE_INFINITY;
export const abs = Math.abs;
