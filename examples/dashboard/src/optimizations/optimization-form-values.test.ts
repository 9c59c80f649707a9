import { describe, expect, it } from 'vitest';
import type { ParamSpec } from '../strategies/read-strategy-meta.js';
import { initialOptimizationValues, type OptimizationFormValues, optimizationBody, problemsAt, trialCount, valueCount } from './optimization-form-values.js';

const SPECS: Record<string, ParamSpec> = {
  fast: { type: 'int', default: 10, min: 2, max: 50 },
  slow: { type: 'int', default: 30, min: 5 },
  mode: { type: 'enum', values: ['trend', 'revert'], default: 'trend' },
  stop: { type: 'float', default: 0.02 },
};

function form(change: (v: OptimizationFormValues) => void): OptimizationFormValues {
  const values = initialOptimizationValues('str_1', SPECS, [], Date.parse('2025-04-01T12:00:00Z'));
  change(values);
  return values;
}

describe('optimization form values', () => {
  it('starts with every parameter fixed at its default and a search from its bounds', () => {
    const values = form(() => undefined);
    expect(values.run.params).toEqual({ fast: '10', slow: '30', mode: 'trend', stop: '0.02' });
    expect(values.choices.fast).toEqual({ mode: 'fixed', min: '2', max: '50', step: '1', list: '' });
    expect(values.choices.slow).toMatchObject({ min: '5', max: '30' });
    expect(values.choices.mode).toMatchObject({ list: 'trend, revert' });
    expect(trialCount(values, SPECS).total).toBeNull(); // nothing searched yet
  });

  it('counts a range as the service does, rounding included', () => {
    const range = (min: string, max: string, step: string) => valueCount({ mode: 'search', min, max, step, list: '' }, SPECS.stop);
    expect(range('0', '1', '0.1')).toBe(11);
    expect(range('5', '20', '5')).toBe(4);
    expect(range('5', '22', '5')).toBe(4);
    expect(range('3', '3', '1')).toBe(1);
    expect(range('5', '1', '1')).toBeNull();
    expect(range('1', '5', '0')).toBeNull();
    expect(range('', '5', '1')).toBeNull();
    expect(valueCount({ mode: 'search', min: '', max: '', step: '', list: 'trend, , revert' }, SPECS.mode)).toBe(2);
  });

  it('counts the trials: combinations times folds, a random search at most its draws', () => {
    const grid = form((v) => {
      v.choices.fast = { ...v.choices.fast!, mode: 'search', min: '5', max: '15', step: '5' };
      v.choices.mode = { ...v.choices.mode!, mode: 'search' };
    });
    expect(trialCount(grid, SPECS)).toEqual({ combinations: 6, folds: 1, total: 6 });
    expect(trialCount({ ...grid, validation: 'holdout' }, SPECS).total).toBe(6);
    expect(trialCount({ ...grid, validation: 'walk-forward', folds: '3' }, SPECS)).toEqual({ combinations: 6, folds: 3, total: 18 });
    expect(trialCount({ ...grid, validation: 'walk-forward', folds: 'x' }, SPECS).total).toBeNull();
    expect(trialCount({ ...grid, method: 'random', count: '4' }, SPECS).total).toBe(4);
    expect(trialCount({ ...grid, method: 'random', count: '40' }, SPECS).total).toBe(6);
  });

  it('sends searched parameters in searchSpace, typed, and only the fixed ones in params', () => {
    const values = form((v) => {
      v.run.symbols = 'btc/usdt:usdt';
      v.choices.fast = { ...v.choices.fast!, mode: 'search', min: '5', max: '15', step: '5' };
      v.choices.mode = { ...v.choices.mode!, mode: 'search', list: 'trend,revert' };
      v.method = 'random';
      v.count = '3';
      v.seed = '';
      v.objective = 'sortino';
      v.minTrades = '5';
      v.validation = 'walk-forward';
      v.folds = '2';
      v.foldMode = 'anchored';
    });
    const body = optimizationBody(values, SPECS);
    expect(body).toMatchObject({ strategyId: 'str_1', symbols: ['BTC/USDT:USDT'], objective: 'sortino' });
    expect(body.params).toEqual({ slow: '30', stop: '0.02' });
    expect(body.searchSpace).toEqual({ fast: { min: 5, max: 15, step: 5 }, mode: { values: ['trend', 'revert'] } });
    expect(body.method).toEqual({ kind: 'random', count: 3 });
    expect(body.constraints).toEqual({ minTrades: 5 });
    expect(body.validation).toEqual({ kind: 'walk-forward', folds: 2, mode: 'anchored', inSampleFraction: 0.5 });
  });

  it('lists the service’s problems at a field and under it', () => {
    const fields = {
      'searchSpace.mode.values.2': ['Repeats an earlier value'],
      'searchSpace.mode.values': ['Too many'],
      'searchSpace.fast.step': ['Must be an integer'],
    };
    expect(problemsAt(fields, 'searchSpace.mode.values')).toEqual(['value 3: Repeats an earlier value', 'Too many']);
    expect(problemsAt(fields, 'searchSpace.fast.step')).toEqual(['Must be an integer']);
    expect(problemsAt(fields, 'searchSpace.fast.min')).toBeUndefined();
  });
});
