import { describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import { parseStrategyMeta, parseStrategyParams, type ParamSpec } from './strategy-meta.js';

const specs: Record<string, ParamSpec> = {
  fast: { type: 'int', default: 10, min: 2 },
  slow: { type: 'int', default: 50 },
  risk: { type: 'float', default: 0.01, min: 0, max: 1 },
  short: { type: 'bool', default: false },
  mode: { type: 'enum', values: ['trend', 'revert'], default: 'trend' },
  label: { type: 'string' },
};

function problems(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StratboxError);
    expect((error as StratboxError).code).toBe('VALIDATION_FAILED');
    expect((error as StratboxError).status).toBe(400);
    return (error as StratboxError).details as { path: string; message: string }[];
  }
  throw new Error('expected a VALIDATION_FAILED error');
}

describe('parseStrategyParams', () => {
  it('parses strings against meta.params and fills defaults', () => {
    expect(parseStrategyParams(specs, { fast: '12', risk: '2.5e-2', short: 'true', mode: 'revert', label: ' a b ' })).toEqual({
      fast: 12,
      slow: 50,
      risk: 0.025,
      short: true,
      mode: 'revert',
      label: ' a b ',
    });
  });

  it('lists every bad value, unknown name and missing required parameter', () => {
    const found = problems(() => parseStrategyParams(specs, { fast: '1', slow: '5.5', risk: 'abc', short: 'yes', mode: 'x', typo: '1' }));
    expect(found.map((p) => p.path).sort()).toEqual([
      'params.fast',
      'params.label',
      'params.mode',
      'params.risk',
      'params.short',
      'params.slow',
      'params.typo',
    ]);
    expect(found.find((p) => p.path === 'params.fast')!.message).toMatch(/at least 2/);
    expect(found.find((p) => p.path === 'params.slow')!.message).toMatch(/integer/);
    expect(found.find((p) => p.path === 'params.label')!.message).toMatch(/Required/);
    expect(found.find((p) => p.path === 'params.typo')!.message).toMatch(/Unknown parameter/);
  });

  it('refuses numbers that are not written in full', () => {
    for (const bad of ['', ' ', '0x10', '1_000', 'Infinity', 'NaN', '1e400']) {
      expect(problems(() => parseStrategyParams({ n: { type: 'float' } }, { n: bad }))[0]!.path).toBe('params.n');
    }
  });

  it('accepts no params when the strategy declares none, and refuses any given', () => {
    expect(parseStrategyParams(undefined, {})).toEqual({});
    expect(problems(() => parseStrategyParams(undefined, { a: '1' }))[0]!.message).toMatch(/declares none/);
  });
});

describe('parseStrategyMeta', () => {
  it('accepts the documented shape', () => {
    expect(parseStrategyMeta({ timeframe: '1h', warmup: 50, params: specs })).toMatchObject({ timeframe: '1h', warmup: 50 });
    expect(parseStrategyMeta(null)).toEqual({});
  });

  it('refuses unknown fields, bad timeframes and defaults outside their range', () => {
    expect(problems(() => parseStrategyMeta({ warmUp: 5 }))[0]!.message).toMatch(/Unknown field/);
    expect(problems(() => parseStrategyMeta({ timeframe: '2h' }))[0]!.path).toBe('meta.timeframe');
    expect(problems(() => parseStrategyMeta({ params: { a: { type: 'int', default: 1, min: 5 } } }))[0]!.message).toMatch(/default must be at least 5/);
    expect(problems(() => parseStrategyMeta({ params: { a: { type: 'decimal' } } }))[0]!.path).toMatch(/^meta\.params\.a/);
  });
});
