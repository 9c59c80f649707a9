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

/**
 * Where a sandbox child-process entry (`worker-entry`, `live-worker-entry`) is, and the Node
 * flags to start it with: from TypeScript sources (tests, `pnpm start`) it runs through tsx; from
 * the built package it is the bundled file beside this one (`dist/sandbox/<name>.js|.cjs`). When a
 * host bundled core into its own file, it is the installed package's
 * (`@stratbox/core/sandbox/<name>`), else the host gives it: `workerPath` (README, "Bundling a
 * host app").
 */
export function resolveWorkerEntry(name: string): { path: string; execArgv: string[] } {
  const here = currentFile();
  const dir = dirname(here);
  if (here.endsWith('.ts')) {
    let tsx = 'tsx';
    try {
      tsx = pathToFileURL(createRequire(here).resolve('tsx')).href;
    } catch {
      // resolve tsx from the working directory
    }
    return { path: join(dir, `${name}.ts`), execArgv: ['--import', tsx, '--conditions=@stratbox/source'] };
  }
  const ext = here.endsWith('.cjs') ? '.cjs' : '.js';
  const candidates = [join(dir, 'sandbox', `${name}${ext}`), join(dir, `${name}${ext}`), join(dir, '..', 'sandbox', `${name}${ext}`)];
  const found = candidates.find((c) => existsSync(c)) ?? installedEntry(here, name);
  if (!found) {
    const option = name === 'live-worker-entry' ? 'deployments: { sandbox: { workerPath } }' : 'sandbox: { workerPath }';
    throw new Error(
      `Stratbox sandbox worker ${name} not found next to ${here}, nor as an installed @stratbox/core/sandbox/${name}. ` +
        `If @stratbox/core is bundled into your app, give the entry's path: createStratbox({ ${option} }) (README, "Bundling a host app")`,
    );
  }
  return { path: found, execArgv: [] };
}
