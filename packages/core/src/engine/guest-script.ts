import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { GuestScriptName } from './guest-bundle.js';

export type { GuestScriptName } from './guest-bundle.js';

function currentFile(): string {
  return typeof __filename === 'string' ? __filename : new URL(import.meta.url).pathname;
}

const scripts = new Map<GuestScriptName, string>();

/** The installed `@stratbox/core` package's copy (`@stratbox/core/guest/<name>.js`), resolved from `from`; null if not installed there. */
function installedScript(from: string, name: string): string | null {
  try {
    return createRequire(from).resolve(`@stratbox/core/guest/${name}.js`);
  } catch {
    return null;
  }
}

/**
 * The bundled guest script `name` (a runtime is an ES module whose `createRuntime(bootJson)`
 * builds its api). From the built package it is dist/guest/<name>.js, written at build time, found
 * beside the running file, else in the installed `@stratbox/core` (a host app that bundled core
 * into its own file copies dist/guest next to its bundle: README, "Bundling a host app"); from
 * TypeScript sources (tests, `pnpm start`) it is bundled here on first use. Read once per process.
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
    const found = candidates.find((c) => existsSync(c)) ?? installedScript(here, name);
    if (!found) {
      throw new Error(
        `Stratbox guest script ${name}.js not found in ${candidates.map(dirname).join(' or ')}, nor in an installed @stratbox/core. ` +
          'If @stratbox/core is bundled into your app, copy node_modules/@stratbox/core/dist/guest next to the bundle (README, "Bundling a host app")',
      );
    }
    text = readFileSync(found, 'utf8');
  }
  scripts.set(name, text);
  return text;
}
