import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ENV_VARIABLES, envDoc } from './env.js';

/*
 * The README's table of environment variables, generated from env.ts. `pnpm env:docs` (in
 * examples/server) rewrites it in place; env.test.ts fails when the README's copy differs.
 */

export const README_PATH = fileURLToPath(new URL('../../../README.md', import.meta.url));
export const TABLE_START =
  '<!-- env-table:start (generated from examples/server/src/env.ts by `npx -y pnpm@10 --filter @stratbox/example-server env:docs`) -->';
export const TABLE_END = '<!-- env-table:end -->';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The markdown table of every variable: name, default, description. */
export function renderEnvTable(): string {
  const rows = ENV_VARIABLES.map((name) => {
    const { description, defaultText } = envDoc(name);
    return `| \`${name}\` | ${cell(defaultText ?? '')} | ${cell(description)} |`;
  });
  return ['| Variable | Default | What it does |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The table as the README holds it between its markers, or null without markers. */
export function readmeEnvTable(readme: string): string | null {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) return null;
  return readme.slice(start + TABLE_START.length, end).trim();
}

/** The README with its table replaced by the generated one. */
export function withEnvTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${TABLE_START} ... ${TABLE_END} markers`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${renderEnvTable()}\n${readme.slice(end)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(README_PATH, withEnvTable(readFileSync(README_PATH, 'utf8')));
  process.stdout.write(`README.md: table of ${ENV_VARIABLES.length} environment variables written\n`);
}
