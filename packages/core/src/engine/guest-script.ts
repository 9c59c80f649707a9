import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { GuestScriptName } from './guest-bundle.js';

export type { GuestScriptName } from './guest-bundle.js';

function currentFile(): string {
  return typeof __filename === 'string' ? __filename : new URL(import.meta.url).pathname;
}

const scripts = new Map<GuestScriptName, string>();

/**
 * From sources, the bundle of `name`, built once per version of the sources for every process:
 * each sandbox child would otherwise load esbuild and TypeScript (well over 100 MB) to build the
 * same file. The cache file is named by a hash of every source it is built from, and written
 * whole (a rename), so a reader never sees half of it.
 */
async function bundleFromSources(engineDir: string, name: GuestScriptName): Promise<string> {
  const hash = createHash('sha256');
  for (const dir of ['guest', 'model']) {
    for (const file of readdirSync(join(engineDir, dir)).sort()) {
      if (file.endsWith('.ts') && !file.endsWith('.test.ts')) hash.update(file).update(readFileSync(join(engineDir, dir, file)));
    }
  }
  hash.update(readFileSync(join(engineDir, 'guest-bundle.ts')));
  const cacheDir = join(tmpdir(), 'stratbox-guest-scripts');
  const cached = join(cacheDir, `${name}-${hash.digest('hex').slice(0, 24)}.js`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  const { bundleGuestScript } = await import('./guest-bundle.js');
  const text = bundleGuestScript(join(engineDir, 'guest', `${name}.ts`));
  try {
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    renameSync(partial, cached);
  } catch {
    // No writable temp folder: this process keeps its own copy.
  }
  return text;
}

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
 * TypeScript sources (tests, `pnpm start`) it is bundled on first use, and cached in the temp
 * folder for the other processes. Read once per process.
 */
export async function guestScript(name: GuestScriptName): Promise<string> {
  const cached = scripts.get(name);
  if (cached !== undefined) return cached;
  const here = currentFile();
  const dir = dirname(here);
  let text: string;
  if (here.endsWith('.ts')) {
    text = await bundleFromSources(dir, name);
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
