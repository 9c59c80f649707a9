import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

function currentFile(): string {
  return typeof __filename === 'string' ? __filename : new URL(import.meta.url).pathname;
}

/**
 * Where a sandbox child-process entry (`worker-entry`, `live-worker-entry`) is, and the Node
 * flags to start it with: from TypeScript sources (tests, `pnpm start`) it runs through tsx; from
 * the built package it is the bundled file beside this one (`dist/sandbox/<name>.js|.cjs`).
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
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`Stratbox sandbox worker ${name} not found next to ${here}`);
  return { path: found, execArgv: [] };
}
