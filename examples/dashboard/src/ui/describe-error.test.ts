import { StratboxClientError } from '@stratbox/client';
import { describe, expect, it } from 'vitest';
import { describeError } from './describe-error.js';

describe('describeError', () => {
  it('keeps the code and message, and files detailed problems under their field', () => {
    const error = new StratboxClientError('VALIDATION_FAILED', 'Invalid body.startDate: bad date', 400, [
      { path: 'body.startDate', message: 'bad date' },
      { path: 'body.fees.maker', message: 'Too big' },
      { path: 'params.fast', message: 'must be at least 2' },
    ]);
    const view = describeError(error);
    expect(view).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, message: 'Invalid body.startDate: bad date' });
    expect(view.fields).toEqual({ startDate: ['bad date'], 'fees.maker': ['Too big'], 'params.fast': ['must be at least 2'] });
  });

  it('separates problems of the source, with their line and column', () => {
    const error = new StratboxClientError('VALIDATION_FAILED', 'Strategy source at line 3, column 13: Unexpected ";"', 400, [
      { path: 'source', message: 'Unexpected ";"', line: 3, column: 13, lineText: '  const x = ;' },
      { path: 'meta.params.zz', message: 'expected object' },
      { path: 'body.name', message: 'Too small' },
    ]);
    const view = describeError(error);
    expect(view.source).toEqual([
      { path: 'source', message: 'Unexpected ";"', line: 3, column: 13 },
      { path: 'meta.params.zz', message: 'expected object' },
    ]);
    expect(view.fields).toEqual({ name: ['Too small'] });
  });

  it('adds what to do for a refused key, and reads errors that are not the API’s', () => {
    expect(describeError(new StratboxClientError('UNAUTHENTICATED', 'Missing or invalid API key', 401)).message).toMatch(/sign in again/);
    expect(describeError(new TypeError('boom'))).toEqual({ code: 'ERROR', message: 'boom', status: 0, fields: {}, source: [] });
  });
});
