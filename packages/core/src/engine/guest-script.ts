import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GuestScriptName } from './guest-bundle.js';

export type { GuestScriptName } from './guest-bundle.js';

function currentFile(): string {
  return typeof __filename === 'string' ? __filename : new URL(import.meta.url).pathname;
}

const scripts = new Map<GuestScriptName, string>();

/**
 * The bundled guest runtime `name`, an ES module whose `createRuntime(bootJson)` builds the
 * runtime's api. From the built package it is dist/guest/<name>.js, written at build time;
 * from TypeScript sources (tests, `pnpm start`) it is bundled here on first use. Read once per
 * process.
 */
export async function guestScript(name: GuestScriptName): Promise<string> {
  const cached = scripts.get(name);
  if (cached !== undefined) return cached;
  const here = currentFile();
  const dir = dirname(here);
  let text: string;
  if (here.endsWith('.ts')) {
    const { bundleGuestScript } = await import('./guest-bundle.js');
    text = bundleGuestScript(join(dir, 'guest', `${name}.ts`));
  } else {
    const candidates = [join(dir, 'guest', `${name}.js`), join(dir, '..', 'guest', `${name}.js`)];
    const found = candidates.find((c) => existsSync(c));
    if (!found) throw new Error(`Stratbox guest runtime ${name}.js not found next to ${here} (looked in ${candidates.join(', ')})`);
    text = readFileSync(found, 'utf8');
  }
  scripts.set(name, text);
  return text;
}
