import { describe, expect, it } from 'vitest';
import { createErrorRecorder, deepFreeze, readExports, readMeta } from './errors.js';
import { createLogBuffer } from './log-buffer.js';

/*
 * How what a strategy threw reaches the host: [kind, message, stack] as JSON, only strings.
 * The kinds and messages are what a user reads on a failed backtest or deployment.
 */
const quietLogs = () => createLogBuffer({ maxLines: 2, maxBytes: 100, scope: ' in one call', now: () => 0 });

function described(e: unknown, logs = quietLogs()): [string, string, string] {
  const recorder = createErrorRecorder(logs);
  recorder.describe(e);
  return JSON.parse(recorder.lastError());
}

/** An error as QuickJS reports it: a name, a message and a stack (frames of strategy.js and of the runtime). */
const guestError = (name: string, message: string, stack = '') => ({ name, message, stack });

describe('createErrorRecorder', () => {
  it('an Error: its name and message, and only the frames of strategy.js', () => {
    const e = new TypeError('price is not a number');
    e.stack = [
      'TypeError: price is not a number',
      '    at onCandle (strategy.js:3:9)',
      '    at runBatch (stratbox-runtime.js:120:5)',
      '    at helper (strategy.js:7:1)',
    ].join('\n');
    expect(described(e)).toEqual(['STRATEGY_ERROR', 'TypeError: price is not a number', '    at onCandle (strategy.js:3:9)\n    at helper (strategy.js:7:1)']);
  });

  it('keeps at most 12 frames and 4,000 characters of stack', () => {
    const frames = Array.from({ length: 20 }, (_, k) => `    at f${k} (strategy.js:${k}:1)`);
    expect(described(guestError('Error', 'deep', frames.join('\n')))[2]).toBe(frames.slice(0, 12).join('\n'));
    const long = Array.from({ length: 13 }, (_, k) => `    at ${'g'.repeat(400)}${k} (strategy.js:1:1)`);
    const stack = described(guestError('Error', 'long', long.join('\n')))[2];
    expect(stack).toBe(`${long.slice(0, 12).join('\n').slice(0, 4000)}...`);
  });

  it('names running out of memory MEMORY_LIMIT and recursion too deep STACK_OVERFLOW', () => {
    expect(described(guestError('InternalError', 'out of memory'))).toEqual(['MEMORY_LIMIT', 'InternalError: out of memory', '']);
    expect(described(guestError('InternalError', 'string too long'))[0]).toBe('MEMORY_LIMIT');
    expect(described(guestError('InternalError', 'stack overflow'))).toEqual(['STACK_OVERFLOW', 'InternalError: stack overflow', '']);
    let overflow: unknown;
    const recurse = (): number => recurse() + 1;
    try {
      recurse();
    } catch (e) {
      overflow = e;
    }
    expect(described(overflow)).toEqual(['STACK_OVERFLOW', 'RangeError: Maximum call stack size exceeded', '']);
    expect(described(guestError('InternalError', 'interrupted'))[0]).toBe('STRATEGY_ERROR');
  });

  it('a thrown string is quoted, and cut after 500 characters', () => {
    expect(described('boom')).toEqual(['STRATEGY_ERROR', 'Strategy threw a string: "boom"', '']);
    expect(described('z'.repeat(600))[1]).toBe(`Strategy threw a string: "${'z'.repeat(500)}..."`);
  });

  it('other values are written as they are', () => {
    expect([42, undefined, null, false, 7n, Symbol('why')].map((v) => described(v)[1])).toEqual([
      'Strategy threw a non-Error value: 42',
      'Strategy threw a non-Error value: undefined',
      'Strategy threw a non-Error value: null',
      'Strategy threw a non-Error value: false',
      'Strategy threw a non-Error value: 7',
      'Strategy threw a non-Error value: Symbol(why)',
    ]);
  });

  it('an object without a name gives its message alone; parts that throw when read are left out', () => {
    expect(described({ message: 'plain object' })[1]).toBe('plain object');
    const hostile = {
      get name(): string {
        throw new Error('no name');
      },
      message: 'still readable',
      get stack(): string {
        throw new Error('no stack');
      },
    };
    expect(described(hostile)).toEqual(['STRATEGY_ERROR', 'still readable', '']);
    expect(described({ name: 'Oops', message: { toString: () => 'from toString' } })[1]).toBe('Oops: from toString');
  });

  it('cuts a message after 2,000 characters', () => {
    expect(described(new Error('y'.repeat(3000)))[1]).toBe(`Error: ${'y'.repeat(1993)}...`);
    // 'Error: ' and 1,993 characters make exactly 2,000: kept whole; one more is cut
    expect(described(new Error('y'.repeat(1993)))[1]).toBe(`Error: ${'y'.repeat(1993)}`);
    expect(described(new Error('y'.repeat(1994)))[1]).toBe(`Error: ${'y'.repeat(1993)}...`);
  });

  it('after the log limit, whatever was thrown is LOG_LIMIT, naming the limits', () => {
    const logs = quietLogs();
    logs.log('1');
    logs.log('2');
    expect(() => logs.log('3')).toThrow('Log limit reached');
    expect(described(new Error('Log limit reached'), logs)).toEqual([
      'LOG_LIMIT',
      'The strategy wrote more than 2 log lines or 100 characters of log in one call',
      '',
    ]);
  });

  it('each error replaces the last one', () => {
    const recorder = createErrorRecorder(quietLogs());
    recorder.describe(guestError('Error', 'first', '    at a (strategy.js:1:1)'));
    recorder.describe('second');
    expect(JSON.parse(recorder.lastError())).toEqual(['STRATEGY_ERROR', 'Strategy threw a string: "second"', '']);
  });
});

describe('readMeta', () => {
  it('answers meta as JSON, or null when absent or not a plain value', () => {
    expect(readMeta({})).toBe('null');
    expect(readMeta({ meta: null })).toBe('null');
    expect(readMeta({ meta: () => 1 })).toBe('null');
    expect(readMeta({ meta: { timeframe: '1h', warmup: 50 } })).toBe('{"timeframe":"1h","warmup":50}');
  });

  it('refuses a meta larger than 200,000 characters', () => {
    expect(() => readMeta({ meta: { name: 'n'.repeat(200_000) } })).toThrow(new RangeError('meta is larger than 200,000 characters'));
  });
});

describe('readExports', () => {
  it('lists each export with its type', () => {
    expect(JSON.parse(readExports({ onCandle() {}, meta: {}, version: 2 }))).toEqual(['onCandle:function', 'meta:object', 'version:number']);
  });
});

describe('deepFreeze', () => {
  it('freezes a value and everything in it, and answers the same value', () => {
    const params = { fast: 3, nested: { list: [1, { deep: true }] } };
    expect(deepFreeze(params)).toBe(params);
    expect([params, params.nested, params.nested.list, params.nested.list[1]].every((v) => Object.isFrozen(v))).toBe(true);
    expect(deepFreeze(null)).toBeNull();
    expect(deepFreeze(5)).toBe(5);
  });
});
