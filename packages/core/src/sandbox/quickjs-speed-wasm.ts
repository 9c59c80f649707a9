import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `quickjs-speed` build's file, in the package's `wasm/` folder (built, not in git: scripts/build-quickjs-speed.mjs). */
export const QUICKJS_SPEED_FILE = 'quickjs-speed.wasm';

function currentFile(): string {
  return typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
}

/**
 * Where the `quickjs-speed` build's .wasm file is: a `wasm/` folder beside the running file or
 * one or two levels above it (the package's `wasm/` from `src/sandbox`, `dist` and
 * `dist/sandbox`; a host app that bundled core copies `wasm/` next to its bundle, README
 * "Bundling a host app"), else the installed `@stratbox/core` package's. Null when none has it.
 */
export function findQuickJsSpeedWasm(): string | null {
  const here = dirname(currentFile());
  for (const up of ['.', '..', join('..', '..')]) {
    const path = join(here, up, 'wasm', QUICKJS_SPEED_FILE);
    if (existsSync(path)) return path;
  }
  try {
    const path = join(dirname(createRequire(currentFile()).resolve('@stratbox/core/package.json')), 'wasm', QUICKJS_SPEED_FILE);
    if (existsSync(path)) return path;
  } catch {
    // @stratbox/core is not installed where this file runs (a bundled copy of it).
  }
  return null;
}
