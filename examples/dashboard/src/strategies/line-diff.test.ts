import { describe, expect, it } from 'vitest';
import { diffStats, lineDiff } from './line-diff.js';

describe('lineDiff', () => {
  it('numbers the lines of each side and marks what changed', () => {
    const rows = lineDiff('a\nb\nc\n', 'a\nB\nc\nd\n');
    expect(rows).toEqual([
      { kind: 'same', oldLine: 1, newLine: 1, text: 'a' },
      { kind: 'removed', oldLine: 2, text: 'b' },
      { kind: 'added', newLine: 2, text: 'B' },
      { kind: 'same', oldLine: 3, newLine: 3, text: 'c' },
      { kind: 'added', newLine: 4, text: 'd' },
    ]);
    expect(diffStats(rows)).toEqual({ added: 2, removed: 1 });
  });

  it('folds long unchanged runs to their context', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const after = before.replace('line 10', 'line ten');
    const rows = lineDiff(before, after, 2);
    expect(rows.map((r) => (r.kind === 'skipped' ? `…${r.count}` : r.kind === 'same' ? r.oldLine : `${r.kind[0]}${r.text}`))).toEqual([
      '…7',
      8,
      9,
      'rline 10',
      'aline ten',
      11,
      12,
      '…8',
    ]);
  });

  it('has no changes for equal texts', () => {
    expect(diffStats(lineDiff('x\ny', 'x\ny'))).toEqual({ added: 0, removed: 0 });
  });
});
