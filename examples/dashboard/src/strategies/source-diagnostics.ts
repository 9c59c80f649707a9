import type { Diagnostic } from '@codemirror/lint';
import type { Text } from '@codemirror/state';
import type { SourceProblem } from '../ui/describe-error.js';
import { readStrategyMeta } from './read-strategy-meta.js';

/**
 * The server's problems with a source as editor diagnostics: a problem with a line and column
 * (1-based, as the service reports syntax errors) marks the character there, or the line's end;
 * a problem of `meta` marks where that part of `meta` is written; one with neither marks nothing
 * (the list under the editor shows it).
 */
export function sourceDiagnostics(doc: Text, problems: SourceProblem[]): Diagnostic[] {
  let meta: ReturnType<typeof readStrategyMeta> | undefined;
  const out: Diagnostic[] = [];
  for (const problem of problems) {
    if (problem.line !== undefined && problem.line >= 1 && problem.line <= doc.lines) {
      const line = doc.line(problem.line);
      const from = Math.min(line.from + Math.max(0, (problem.column ?? 1) - 1), line.to);
      out.push({ from, to: Math.min(from + 1, line.to), severity: 'error', message: problem.message, source: 'Stratbox' });
    } else if (problem.path.startsWith('meta')) {
      meta ??= readStrategyMeta(doc.toString());
      const at = meta.locate(problem.path);
      if (at) out.push({ ...at, severity: 'error', message: `${problem.path}: ${problem.message}`, source: 'Stratbox' });
    }
  }
  return out;
}

/** `line 3, column 13` (or nothing) for the list of problems. */
export function problemPlace(problem: SourceProblem): string {
  if (problem.line === undefined) return problem.path === 'source' ? '' : problem.path;
  return problem.column === undefined ? `line ${problem.line}` : `line ${problem.line}, column ${problem.column}`;
}
