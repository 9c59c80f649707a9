import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

function currentFile(): string {
  return typeof __filename === 'string' ? __filename : new URL(import.meta.url).pathname;
}

/** Where the installed `@stratbox/core` keeps a worker entry, resolved from `from`; null if not installed there. */
function installedEntry(from: string, name: string): string | null {
  try {
    return createRequire(from).resolve(`@stratbox/core/sandbox/${name}`);
  } catch {
    return null;
  }
}

/** A child-process entry that core publishes. */
export interface WorkerEntry {
  /** Its name in the package: built as `dist/sandbox/<name>.js|.cjs`, published as `@stratbox/core/sandbox/<name>`. */
  name: string;
  /** Its TypeScript source, relative to the package's `src/`. */
  source: string;
  /** The `createStratbox` option a host that bundles core sets to give the entry's path, for the not-found error. */
  option: string;
}

/**
 * Where a sandbox child-process entry (the backtest `worker-entry`, the `live-worker-entry`) is,
 * and the Node flags to start it with: from TypeScript sources (tests, `pnpm start`) it runs
 * through tsx; from the built package it is the bundled file beside this one
 * (`dist/sandbox/<name>.js|.cjs`). When a host bundled core into its own file, it is the
 * installed package's (`@stratbox/core/sandbox/<name>`), else the host gives it: `workerPath`
 * (README, "Bundling a host app").
 */
export function resolveWorkerEntry(entry: WorkerEntry): { path: string; execArgv: string[] } {
  const { name } = entry;
  const here = currentFile();
  const dir = dirname(here);
  if (here.endsWith('.ts')) {
    let tsx = 'tsx';
    try {
      tsx = pathToFileURL(createRequire(here).resolve('tsx')).href;
    } catch {
      // resolve tsx from the working directory
    }
    return { path: join(dir, '..', entry.source), execArgv: ['--import', tsx, '--conditions=@stratbox/source'] };
  }
  const ext = here.endsWith('.cjs') ? '.cjs' : '.js';
  const candidates = [join(dir, 'sandbox', `${name}${ext}`), join(dir, `${name}${ext}`), join(dir, '..', 'sandbox', `${name}${ext}`)];
  const found = candidates.find((c) => existsSync(c)) ?? installedEntry(here, name);
  if (!found) {
    throw new Error(
      `Stratbox sandbox worker ${name} not found next to ${here}, nor as an installed @stratbox/core/sandbox/${name}. ` +
        `If @stratbox/core is bundled into your app, give the entry's path: createStratbox({ ${entry.option} }) (README, "Bundling a host app")`,
    );
  }
  return { path: found, execArgv: [] };
}
