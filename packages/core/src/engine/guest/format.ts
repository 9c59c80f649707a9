import { jsonStringify, Str } from './intrinsics.js';

/** Any value as log text: strings as they are, objects as JSON when they can be, never a throw. */
export function fmt(v: unknown): string {
  const t = typeof v;
  if (t === 'string') return v as string;
  if (v === null || t === 'number' || t === 'boolean' || t === 'undefined' || t === 'bigint' || t === 'symbol') return Str(v);
  if (t === 'function') return '[function]';
  try {
    const j = jsonStringify(v);
    if (typeof j === 'string') return j;
  } catch {
    // fall through to String()
  }
  try {
    return Str(v);
  } catch {
    return '[object]';
  }
}
