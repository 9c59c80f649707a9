import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleGuestScript, GUEST_SCRIPTS } from '../../packages/core/src/engine/guest-bundle.js';
import { REPO_ROOT } from './harness/paths.js';
import { runNode } from './harness/run-node.js';

/*
 * A host app that bundles @stratbox/core (and store-kysely) into its own file with esbuild, as the
 * README's "Bundling a host app" shows: the sandbox's worker entries are bundled beside it and
 * given by path (`workerPath`); packages with native code, wasm files or their own binaries stay
 * external and are installed next to the bundle (here: symlinks to the workspace's copies). The
 * bundle lives in a temp dir outside the repository, so nothing resolves from the workspace.
 */

/** The host app, a typed module of its own; `here()` in it resolves next to the bundle. */
const HOST_APP = fileURLToPath(new URL('./fixtures/bundled-host-app.ts', import.meta.url));

/** The README's externals: native code (better-sqlite3), wasm files (@jitl), own binaries (esbuild), large SDKs. */
const EXTERNAL = ['better-sqlite3', 'pg', 'ccxt', 'stripe', 'esbuild', '@jitl/*'];

/** A package's name from an import path (`@jitl/x/wasm` -> `@jitl/x`). */
const packageName = (path: string) =>
  path
    .split('/')
    .slice(0, path.startsWith('@') ? 2 : 1)
    .join('/');

/** The workspace's installed copy of a package, searched from the packages that depend on it. */
function installedDir(name: string): string {
  const core = join(REPO_ROOT, 'packages/core');
  const bases = [core, join(REPO_ROOT, 'packages/store-kysely'), realpathSync(join(core, 'node_modules/quickjs-emscripten-core'))];
  for (const base of bases) {
    for (const dir of createRequire(join(base, 'package.json')).resolve.paths(name) ?? []) {
      if (existsSync(join(dir, name, 'package.json'))) return realpathSync(join(dir, name));
    }
  }
  throw new Error(`${name} is not installed in the workspace`);
}

describe('a host app bundled with esbuild', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-bundle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs a backtest with the sandbox worker entries given by path', { timeout: 180_000 }, async () => {
    const result = await build({
      absWorkingDir: dir,
      entryPoints: {
        app: HOST_APP,
        'workers/backtest': '@stratbox/core/sandbox/worker-entry',
        'workers/live': '@stratbox/core/sandbox/live-worker-entry',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outdir: join(dir, 'dist'),
      outExtension: { '.js': '.mjs' },
      external: EXTERNAL,
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      // the workspace's packages, from their current sources (the host would use the installed ones)
      nodePaths: [join(REPO_ROOT, 'tests/node_modules')],
      conditions: ['@stratbox/source'],
      metafile: true,
      logLevel: 'silent',
    });
    const outputs = result.metafile.outputs;
    // core is in the bundle, not an import of it
    expect(Object.keys(result.metafile.inputs).some((i) => i.includes('packages/core/src/create-stratbox.ts'))).toBe(true);
    const externals = new Set(
      Object.values(outputs).flatMap((o) => o.imports.filter((i) => i.external && !i.path.startsWith('node:')).map((i) => packageName(i.path))),
    );
    expect([...externals].some((name) => name.startsWith('@stratbox/'))).toBe(false);

    // "npm install" of the externals next to the bundle
    for (const name of externals) {
      const link = join(dir, 'dist/node_modules', name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(installedDir(name), link, 'dir');
    }

    // the strategy runtimes the worker entries evaluate, copied beside the bundle as the README says
    // (the build writes them to packages/core/dist/guest; here they are bundled from the same sources)
    mkdirSync(join(dir, 'dist/guest'));
    for (const name of GUEST_SCRIPTS)
      writeFileSync(join(dir, 'dist/guest', `${name}.js`), bundleGuestScript(join(REPO_ROOT, `packages/core/src/engine/guest/${name}.ts`)));

    // the default QuickJS build, copied beside the bundle as the README says (the package's install writes packages/core/wasm)
    cpSync(join(REPO_ROOT, 'packages/core/wasm'), join(dir, 'dist/wasm'), { recursive: true });

    const run = await runNode([join(dir, 'dist/app.mjs')], { cwd: join(dir, 'dist'), timeoutMs: 150_000 });
    expect(run.stderr).not.toContain('Error');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop() ?? '')).toEqual({ status: 'completed', error: null, tradeCount: 1 });
  });
});
