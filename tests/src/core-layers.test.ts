import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/paths.js';

/*
 * The layers of @stratbox/core that must not import each other both ways. The backtest engine
 * is the lower layer: research (walk-forward windows, overfitting statistics, search spaces)
 * builds on it, and nothing under `backtests/engine/` reaches `research/`, by a direct import
 * or through any other module of core.
 */

const CORE_SRC = join(REPO_ROOT, 'packages/core/src');
const ENGINE = join(CORE_SRC, 'backtests/engine');
const RESEARCH = join(CORE_SRC, 'research');

/** Every `.ts` file under `dir`, tests included (a test importing the upper layer is a cycle too). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

// import/export ... from '...', import '...', import('...')
const SPECIFIER = /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The specifiers a module's source imports or re-exports from, in order. */
function specifiers(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

/** The files of the repository that `file` imports by a relative path (packages by name are left out). */
function relativeImports(file: string): string[] {
  return specifiers(readFileSync(file, 'utf8')).flatMap((specifier) => {
    if (!specifier.startsWith('.')) return [];
    const base = resolve(dirname(file), specifier);
    const stem = base.replace(/\.(js|mjs|cjs)$/, '');
    const found = [base, `${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts')].find((path) => existsSync(path) && statSync(path).isFile());
    return found ? [found] : [];
  });
}

const inside = (file: string, dir: string) => !relative(dir, file).startsWith('..');

/** The chains of imports from a file under `from` to a file under `to`, one per file of `to` reached (shortest first). */
function importChains(from: string, to: string): string[][] {
  const chains: string[][] = [];
  const seen = new Set<string>();
  const queue: string[][] = tsFiles(from).map((file) => [file]);
  for (const chain of queue) seen.add(chain[0]!);
  while (queue.length > 0) {
    const chain = queue.shift()!;
    for (const next of relativeImports(chain.at(-1)!)) {
      if (seen.has(next)) continue;
      seen.add(next);
      if (inside(next, to)) chains.push([...chain, next]);
      else queue.push([...chain, next]);
    }
  }
  return chains.map((chain) => chain.map((file) => relative(CORE_SRC, file)));
}

describe('core layers', () => {
  it('the backtest engine never imports research/, directly or through another module (research builds on the engine)', () => {
    expect(tsFiles(ENGINE).length).toBeGreaterThan(10);
    expect(importChains(ENGINE, RESEARCH)).toEqual([]);
  });

  it('research/ does build on the engine (the one direction the two folders depend in)', () => {
    const walkForward = relativeImports(join(RESEARCH, 'walk-forward.ts')).map((file) => relative(CORE_SRC, file));
    expect(walkForward).toContain('backtests/engine/time-window.ts');
  });

  it('the scan sees every kind of import: import, import type, export from, side-effect import, import()', () => {
    const source = [
      "import { a } from '../research/a.js';",
      "import type {\n  B,\n  C,\n} from './b.js';",
      "export { d } from '../../research/d.js';",
      "export * from './e.js';",
      "import './f.js';",
      "const g = await import('./g.js');",
      "// 'from' in a comment with no import keyword: ignored",
    ].join('\n');
    expect(specifiers(source)).toEqual(['../research/a.js', './b.js', '../../research/d.js', './e.js', './f.js', './g.js']);
  });
});
