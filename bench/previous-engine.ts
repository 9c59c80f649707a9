import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The engine as it was before the guest runtime moved into typed modules: the last commit whose
 * backtests ran the ES5 runtime written in a string (sandbox/guest-runtime.ts).
 */
export const PREVIOUS_ENGINE_COMMIT = 'bd827d38aaf9439ac1bc144f929687ab3a84da79';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The subset of the previous `createSandboxPool` the bench calls. */
export interface PreviousPool {
  runBacktest(job: unknown): Promise<{ trades: unknown[]; stats: { cpuMs: number } }>;
  close(): Promise<void>;
}

/**
 * Extracts packages/core of `commit` from git into a temporary folder (reusing this checkout's
 * node_modules) and answers its `createSandboxPool`, so one bench run measures both engines on
 * one machine at one time. Throws when git or the commit is not available.
 */
export async function loadPreviousEngine(commit = PREVIOUS_ENGINE_COMMIT): Promise<(options: object) => PreviousPool> {
  const dir = await previousEngineDir(commit);
  const mod = (await import(pathToFileURL(join(dir, 'packages/core/src/sandbox/sandbox-pool.ts')).href)) as {
    createSandboxPool: (options: object) => PreviousPool;
  };
  return mod.createSandboxPool;
}

/** The folder packages/core of `commit` is extracted into (once), with this checkout's node_modules linked in. */
export async function previousEngineDir(commit = PREVIOUS_ENGINE_COMMIT): Promise<string> {
  const dir = join(tmpdir(), `stratbox-engine-${commit.slice(0, 12)}`);
  if (!existsSync(join(dir, 'packages/core/src/sandbox/sandbox-pool.ts'))) {
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['-C', ROOT, 'archive', commit, 'packages/core/src', 'packages/core/package.json'], { maxBuffer: 256 * 1024 ** 2 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    for (const link of ['node_modules', 'packages/core/node_modules']) {
      if (!existsSync(join(dir, link))) symlinkSync(join(ROOT, link), join(dir, link), 'dir');
    }
  }
  return dir;
}
