/*
 * Built-ins the guest runtime uses, captured when the runtime script is evaluated, before the
 * strategy's module runs: a strategy that replaces `JSON.stringify` or `Object.freeze` changes
 * its own code, never the runtime's.
 */
export const freeze = Object.freeze;
export const keys = Object.keys;
export const jsonStringify = JSON.stringify;
export const jsonParse = JSON.parse;
export const Str = String;
export const F64 = Float64Array;
