import { describe, expect, it } from 'vitest';
import { createLogBuffer, installConsole } from './log-buffer.js';

/* The strategy's log lines: stamped with the run's clock, cut when too long, limited in number and size. */
function buffer(maxLines = 10, maxBytes = 10_000) {
  let t = 1000;
  const logs = createLogBuffer({ maxLines, maxBytes, scope: ' in one call', now: () => t });
  return { logs, tick: () => (t += 1000) };
}

describe('createLogBuffer', () => {
  it('keeps lines with the time, level and the values written out, until drained or taken', () => {
    const { logs, tick } = buffer();
    expect(logs.hasLines()).toBe(false);
    expect(logs.drain()).toBe('[]');
    logs.log('price', 101.5, { side: 'long' }, [1, 2], null, undefined);
    tick();
    logs.write('warn', ['careful']);
    logs.write('error', []);
    expect(logs.hasLines()).toBe(true);
    expect(JSON.parse(logs.drain())).toEqual([
      [1000, 'info', 'price 101.5 {"side":"long"} [1,2] null undefined'],
      [2000, 'warn', 'careful'],
      [2000, 'error', ''],
    ]);
    expect(logs.hasLines()).toBe(false);
    logs.write('debug', ['again']);
    expect(logs.take()).toEqual([[2000, 'debug', 'again']]);
    expect(logs.take()).toEqual([]);
  });

  it('cuts a line over 2,000 characters, and counts the cut line against the size limit', () => {
    const { logs } = buffer(10, 2003);
    logs.log('x'.repeat(2500));
    const [[, , text]] = logs.take() as [[number, string, string]];
    expect(text).toBe(`${'x'.repeat(2000)}...`);
    expect(() => logs.log('y')).toThrow('Log limit reached');
    const edge = buffer().logs;
    edge.log('x'.repeat(2000));
    edge.log('x'.repeat(2001));
    expect(edge.take().map(([, , t]) => t.length)).toEqual([2000, 2003]);
  });

  it('throws once past the number of lines, and keeps throwing; reset starts the count again', () => {
    const { logs } = buffer(2);
    logs.log('a');
    logs.log('b');
    expect(logs.hit).toBe(false);
    expect(() => logs.log('c')).toThrow('Log limit reached');
    expect(logs.hit).toBe(true);
    expect(() => logs.write('info', [''])).toThrow('Log limit reached');
    expect(logs.take().map((l) => l[2])).toEqual(['a', 'b']);
    logs.reset();
    expect(logs.hit).toBe(false);
    logs.log('d');
    logs.log('e');
    expect(logs.take().map((l) => l[2])).toEqual(['d', 'e']);
  });

  it('throws once past the number of characters', () => {
    const { logs } = buffer(100, 10);
    logs.log('abcdefghij');
    expect(() => logs.log('k')).toThrow('Log limit reached');
    expect(logs.take().map((l) => l[2])).toEqual(['abcdefghij']);
  });

  it('reset forgets unread lines', () => {
    const { logs } = buffer();
    logs.log('lost');
    logs.reset();
    expect(logs.hasLines()).toBe(false);
    expect(logs.drain()).toBe('[]');
  });

  it('says what it limits, for the error message', () => {
    const { logs } = buffer(7, 99);
    expect([logs.maxLines, logs.maxBytes, logs.scope]).toEqual([7, 99, ' in one call']);
  });
});

describe('installConsole', () => {
  it('sends console.log/info/warn/error/debug to the buffer at their levels (the console restored afterwards)', () => {
    const { logs } = buffer();
    const real = Object.getOwnPropertyDescriptor(globalThis, 'console')!;
    let frozen = false;
    try {
      installConsole(logs);
      console.log('l', 1);
      console.info('i');
      console.warn('w');
      console.error('e');
      console.debug('d');
      frozen = Object.isFrozen(globalThis.console);
    } finally {
      Object.defineProperty(globalThis, 'console', real);
    }
    expect(frozen).toBe(true);
    expect(logs.take().map(([, level, text]) => [level, text])).toEqual([
      ['info', 'l 1'],
      ['info', 'i'],
      ['warn', 'w'],
      ['error', 'e'],
      ['debug', 'd'],
    ]);
  });
});
