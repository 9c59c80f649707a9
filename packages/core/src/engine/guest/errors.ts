import { freeze, jsonStringify, keys, Str } from './intrinsics.js';
import type { LogBuffer } from './log-buffer.js';

/*
 * Errors are described inside the guest, so the host only ever reads strings: anything the
 * strategy threw becomes a kind (STRATEGY_ERROR, LOG_LIMIT, MEMORY_LIMIT, STACK_OVERFLOW), a
 * message and the stack frames of strategy.js.
 */

export interface ErrorRecorder {
  /** Records `e` as the last error. */
  describe(e: unknown): void;
  /** The last error as JSON `[kind, message, stack]`. */
  lastError(): string;
}

export function createErrorRecorder(logs: LogBuffer): ErrorRecorder {
  let kind = '';
  let message = '';
  let stack = '';
  function describe(e: unknown): void {
    if (logs.hit) {
      kind = 'LOG_LIMIT';
      message = `The strategy wrote more than ${logs.maxLines} log lines or ${logs.maxBytes} characters of log${logs.scope}`;
      return;
    }
    kind = 'STRATEGY_ERROR';
    stack = '';
    try {
      if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
        let name = '';
        let msg = '';
        const err = e as { name?: unknown; message?: unknown; stack?: unknown };
        try {
          name = Str(err.name);
        } catch {}
        try {
          msg = Str(err.message);
        } catch {}
        try {
          if (typeof err.stack === 'string') {
            const lines = err.stack.split('\n');
            const kept: string[] = [];
            for (let i = 0; i < lines.length && kept.length < 12; i++) if (lines[i]!.indexOf('strategy.js') >= 0) kept.push(lines[i]!);
            stack = kept.join('\n');
            if (stack.length > 4000) stack = `${stack.slice(0, 4000)}...`;
          }
        } catch {}
        if (name === 'InternalError' && (msg === 'out of memory' || msg === 'string too long')) kind = 'MEMORY_LIMIT';
        else if ((name === 'InternalError' && msg === 'stack overflow') || (name === 'RangeError' && msg === 'Maximum call stack size exceeded'))
          kind = 'STACK_OVERFLOW';
        message = (name && name !== 'undefined' ? `${name}: ` : '') + msg;
      } else if (typeof e === 'string') {
        message = `Strategy threw a string: ${jsonStringify(e.length > 500 ? `${e.slice(0, 500)}...` : e)}`;
      } else {
        message = `Strategy threw a non-Error value: ${Str(e)}`;
      }
    } catch {
      message = 'Strategy threw a value that could not be described';
    }
    if (message.length > 2000) message = `${message.slice(0, 2000)}...`;
  }
  return {
    describe,
    lastError: () => jsonStringify([kind, message, stack]),
  };
}

/** The strategy's `meta` export as JSON ('null' when absent or not serializable). */
export function readMeta(ns: Record<string, unknown>): string {
  const m = ns.meta;
  if (m === undefined || m === null) return 'null';
  const s = jsonStringify(m);
  if (typeof s !== 'string') return 'null';
  if (s.length > 200000) throw new RangeError('meta is larger than 200,000 characters');
  return s;
}

/** The strategy module's exports as JSON `["name:type", ...]`. */
export function readExports(ns: Record<string, unknown>): string {
  const out: string[] = [];
  const names = keys(ns);
  for (let i = 0; i < names.length; i++) out.push(`${names[i]}:${typeof ns[names[i]!]}`);
  return jsonStringify(out);
}

/** Freezes `v` and everything it holds. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    const k = keys(v);
    for (let i = 0; i < k.length; i++) deepFreeze((v as Record<string, unknown>)[k[i]!]);
    freeze(v);
  }
  return v;
}
