import { diffLines } from 'diff';

/** One row of a line diff: a line only in the old text, only in the new one, in both, or a run of unchanged lines left out. */
export type DiffRow =
  | { kind: 'removed'; oldLine: number; text: string }
  | { kind: 'added'; newLine: number; text: string }
  | { kind: 'same'; oldLine: number; newLine: number; text: string }
  | { kind: 'skipped'; count: number };

/**
 * The line diff of two sources (the `diff` package's, Myers' algorithm), with unchanged runs
 * longer than twice `context` lines folded to their first and last `context` lines.
 */
export function lineDiff(before: string, after: string, context = 3): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const part of diffLines(before, after)) {
    const lines = part.value.replace(/\n$/, '').split('\n');
    for (const text of lines) {
      if (part.added) rows.push({ kind: 'added', newLine: newLine++, text });
      else if (part.removed) rows.push({ kind: 'removed', oldLine: oldLine++, text });
      else rows.push({ kind: 'same', oldLine: oldLine++, newLine: newLine++, text });
    }
  }
  return fold(rows, context);
}

function fold(rows: DiffRow[], context: number): DiffRow[] {
  const out: DiffRow[] = [];
  let i = 0;
  while (i < rows.length) {
    if (rows[i]!.kind !== 'same') {
      out.push(rows[i++]!);
      continue;
    }
    let end = i;
    while (end < rows.length && rows[end]!.kind === 'same') end++;
    const keepBefore = i === 0 ? 0 : context;
    const keepAfter = end === rows.length ? 0 : context;
    if (end - i > keepBefore + keepAfter + 1) {
      out.push(...rows.slice(i, i + keepBefore), { kind: 'skipped', count: end - i - keepBefore - keepAfter }, ...rows.slice(end - keepAfter, end));
    } else {
      out.push(...rows.slice(i, end));
    }
    i = end;
  }
  return out;
}

/** Lines added and removed. */
export function diffStats(rows: DiffRow[]): { added: number; removed: number } {
  return { added: rows.filter((r) => r.kind === 'added').length, removed: rows.filter((r) => r.kind === 'removed').length };
}
