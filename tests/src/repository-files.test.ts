import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/paths.js';

/** Files git tracks, plus new ones it does not ignore (so that a file is checked before its first commit). */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return out.split('\0').filter((file) => file && existsSync(join(REPO_ROOT, file)));
}

const TEXT = /\.(ts|mts|cts|js|mjs|cjs|json|md|ya?ml|txt|sh)$|(^|\/)(LICENSE|run|\.gitignore)$/;

describe('the repository stands alone', () => {
  it('no file refers to documents outside the repository (the wire contract and spec are in docs/)', () => {
    // built from pieces so that this file does not match itself
    // (the shared folder beside the repository, and the names its documents had there)
    const outside = new RegExp(['\\.\\./', 'shared', '|/work/', 'shared|', '\\b(API|SPEC|DESIGN)\\.md\\b'].join(''));
    const offenders = repositoryFiles()
      .filter((file) => TEXT.test(file))
      .flatMap((file) =>
        readFileSync(join(REPO_ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, index) => (outside.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders).toEqual([]);
    expect(existsSync(join(REPO_ROOT, 'docs/spec.md')) && existsSync(join(REPO_ROOT, 'docs/api-contract.md'))).toBe(true);
  });

  it('every publishable package has a README and the MIT LICENSE of the repository', () => {
    const license = readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License/);
    for (const dir of readdirSync(join(REPO_ROOT, 'packages'))) {
      const root = join(REPO_ROOT, 'packages', dir);
      if (!existsSync(join(root, 'package.json'))) continue;
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; private?: boolean; license?: string };
      if (manifest.private) continue;
      expect(manifest.license, manifest.name).toBe('MIT');
      expect(readFileSync(join(root, 'LICENSE'), 'utf8'), `${manifest.name}: LICENSE`).toBe(license);
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      expect(readme, `${manifest.name}: README.md`).toContain(`# ${manifest.name}`);
      expect(readme, `${manifest.name}: README.md install`).toContain(`npm i ${manifest.name}`);
      expect(readme, `${manifest.name}: README.md link to the repository's README`).toContain('](../../README.md');
    }
  });
});
