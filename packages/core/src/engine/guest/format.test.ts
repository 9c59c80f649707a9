import { describe, expect, it } from 'vitest';
import { fmt } from './format.js';

/* How a value reads in a log line or an error message: never a throw. */
describe('fmt', () => {
  it('writes strings as they are and other primitives with String()', () => {
    expect(fmt('plain text')).toBe('plain text');
    expect(fmt('')).toBe('');
    expect([1.5, -0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, true, null, undefined, 12n, Symbol('s')].map(fmt)).toEqual([
      '1.5',
      '0',
      'NaN',
      'Infinity',
      '1e+21',
      'true',
      'null',
      'undefined',
      '12',
      'Symbol(s)',
    ]);
  });

  it('writes objects and arrays as JSON, functions as [function]', () => {
    expect(fmt({ a: 1, b: [2, 'x'], c: null })).toBe('{"a":1,"b":[2,"x"],"c":null}');
    expect(fmt([1, 'a'])).toBe('[1,"a"]');
    expect(fmt(new Date(0))).toBe('"1970-01-01T00:00:00.000Z"');
    expect(fmt(() => 1)).toBe('[function]');
    expect(fmt(class Strategy {})).toBe('[function]');
  });

  it('falls back to String() when JSON cannot write the value, and to [object] when nothing can', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(fmt(cyclic)).toBe('[object Object]');
    expect(fmt({ big: 1n })).toBe('[object Object]');
    expect(fmt({ toJSON: () => undefined, toString: () => 'my value' })).toBe('my value');
    const hostile: Record<string, unknown> = {
      toString() {
        throw new Error('no');
      },
    };
    hostile.self = hostile;
    expect(fmt(hostile)).toBe('[object]');
    const bare = Object.create(null) as Record<string, unknown>;
    bare.self = bare;
    expect(fmt(bare)).toBe('[object]');
  });
});
