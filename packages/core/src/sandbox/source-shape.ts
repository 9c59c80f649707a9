import { StratboxError } from '../errors/stratbox-error.js';

/** Deepest nesting of brackets, braces, parentheses and template `${` a strategy source may have. */
export const MAX_SOURCE_NESTING = 128;
/** Most operators and commas one statement may chain at one nesting level (`1+1+1+...`). */
export const MAX_EXPRESSION_CHAIN = 10_000;

const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);
const CHAIN = new Set(['+', '-', '*', '/', '%', '&', '|', '^', '<', '>', '?', ':', '=', ',', '.']);

function positionOf(source: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < index; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: index - lineStart + 1 };
}

function tooComplex(source: string, index: number, message: string): never {
  const at = positionOf(source, index);
  throw new StratboxError('VALIDATION_FAILED', `Strategy source at line ${at.line}, column ${at.column}: ${message}`, [
    { path: 'source', message, line: at.line, column: at.column, code: 'SOURCE_TOO_COMPLEX' },
  ]);
}

/**
 * Refuses, in one linear pass and without parsing, sources shaped to exhaust a parser: nesting
 * deeper than `MAX_SOURCE_NESTING` (`[[[[...`, `{{{{...`, `((((...`, nested templates) or one
 * statement chaining more than `MAX_EXPRESSION_CHAIN` operators. Parsers (esbuild's, QuickJS's)
 * recurse once per level, so such a source crashes or stalls them; no hand-written strategy
 * comes near these bounds. Throws `StratboxError('VALIDATION_FAILED')` (400) with the line and
 * column, and `code: 'SOURCE_TOO_COMPLEX'` in `details`.
 *
 * It skips comments and string and template text, and reads `/` as an operator (a regex
 * literal's brackets are counted like code), so it is a bound, not a parser.
 */
export function checkSourceShape(source: string): void {
  // the kinds of the open levels: '(' '[' '{' for brackets, '$' for a template's `${`, '`' for template text
  const stack: string[] = [];
  // operators chained at each level since its last statement boundary
  const chains: number[] = [0];
  let depth = 0;
  const n = source.length;
  let i = 0;
  while (i < n) {
    const top = stack[stack.length - 1];
    const ch = source[i]!;
    if (top === '`') {
      // template text: ends at a backtick or opens an expression with `${`
      if (ch === '\\') i += 2;
      else if (ch === '`') {
        stack.pop();
        i++;
      } else if (ch === '$' && source[i + 1] === '{') {
        open('$', i);
        i += 2;
      } else i++;
      continue;
    }
    if (ch === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      i = end < 0 ? n : end;
      continue;
    }
    if (ch === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (ch === '"' || ch === "'") {
      i++;
      while (i < n && source[i] !== ch && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (ch === '`') {
      stack.push('`');
      i++;
      continue;
    }
    if (OPEN.has(ch)) open(ch, i);
    else if (CLOSE.has(ch)) {
      if (stack.length > 0) {
        stack.pop();
        chains.pop();
        depth--;
      }
      if (ch === '}') chains[chains.length - 1] = 0;
    } else if (ch === ';') chains[chains.length - 1] = 0;
    else if (CHAIN.has(ch)) {
      const level = chains.length - 1;
      if (++chains[level]! > MAX_EXPRESSION_CHAIN) {
        tooComplex(source, i, `one statement chains more than ${MAX_EXPRESSION_CHAIN} operators; split it into smaller statements`);
      }
    }
    i++;
  }

  function open(kind: string, at: number) {
    if (++depth > MAX_SOURCE_NESTING) {
      tooComplex(source, at, `brackets, braces, parentheses and template expressions nest more than ${MAX_SOURCE_NESTING} levels deep`);
    }
    stack.push(kind);
    chains.push(0);
  }
}
