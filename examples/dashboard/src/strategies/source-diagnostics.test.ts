import { Text } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { problemPlace, sourceDiagnostics } from './source-diagnostics.js';

const doc = Text.of([
  'export const meta = { params: { fast: { type: "int", min: 5, default: 2 } } };',
  'export function onCandle(ctx, c) {',
  '  const x = ;',
  '}',
]);

describe('sourceDiagnostics', () => {
  it('marks a syntax error at its line and column', () => {
    const [d] = sourceDiagnostics(doc, [{ path: 'source', message: 'Unexpected ";"', line: 3, column: 13 }]);
    expect(d).toMatchObject({ severity: 'error', message: 'Unexpected ";"' });
    expect(doc.lineAt(d!.from).number).toBe(3);
    expect(doc.sliceString(d!.from, d!.to)).toBe(';');
  });

  it('marks a meta problem where that part of meta is written', () => {
    const [d] = sourceDiagnostics(doc, [{ path: 'meta.params.fast.default', message: 'default must be at least 5' }]);
    expect(doc.sliceString(d!.from, d!.to)).toBe('default: 2');
  });

  it('keeps marks inside the document, and marks nothing for a problem without a place', () => {
    const [end] = sourceDiagnostics(doc, [{ path: 'source', message: 'x', line: 4, column: 99 }]);
    expect(end!.from).toBe(doc.length);
    expect(sourceDiagnostics(doc, [{ path: 'source', message: 'No onCandle export' }])).toEqual([]);
    expect(sourceDiagnostics(doc, [{ path: 'source', message: 'x', line: 40, column: 1 }])).toEqual([]);
  });

  it('names the place of a problem for the list', () => {
    expect(problemPlace({ path: 'source', message: '', line: 3, column: 13 })).toBe('line 3, column 13');
    expect(problemPlace({ path: 'meta.params.x', message: '' })).toBe('meta.params.x');
  });
});
