import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `sandbox/` is a generic QuickJS host: backtests and deployments import it, never the other
 * way. This reads every module of the folder (tests and fixtures included) and fails on an
 * import, re-export or dynamic import that reaches into the backtests or deployments folders.
 */
const SANDBOX = dirname(fileURLToPath(import.meta.url));
const SRC = resolve(SANDBOX, '..');
const FORBIDDEN = ['backtests', 'deployments'];
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return /\.(ts|mts|cts|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('sandbox layering', () => {
  it('never imports the backtests or deployments folders', () => {
    const files = modules(SANDBOX);
    expect(files.length).toBeGreaterThan(10);
    const offending: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(SPECIFIER)) {
        const specifier = match[1] ?? match[2] ?? match[3]!;
        if (!specifier.startsWith('.')) continue;
        const top = relative(SRC, resolve(dirname(file), specifier)).split(/[\\/]/)[0]!;
        if (FORBIDDEN.includes(top)) offending.push(`${relative(SRC, file)}: ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
