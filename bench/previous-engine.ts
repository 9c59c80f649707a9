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
export function loadPreviousEngine(commit = PREVIOUS_ENGINE_COMMIT): Promise<(options: object) => PreviousPool> {
  return poolFactoryAt<PreviousPool>(commit, 'sandbox/sandbox-pool.ts');
}

/** The folder packages/core of `commit` is extracted into (once), with this checkout's node_modules linked in. */
export async function previousEngineDir(commit = PREVIOUS_ENGINE_COMMIT): Promise<string> {
  return coreAtCommit(commit);
}

/**
 * The engine on the day issue 28 was filed (the tree its figures were measured on): trials
 * evaluating the guest runtime afresh each, on the release build. `bench/trials.bench.ts` and
 * `bench/engine.bench.ts` run it beside today's.
 */
export const ISSUE_28_COMMIT = '2fe6eaf643ae9075fd213162db1ac66ceb2c986e';

/** The subset of `createSandboxPool` at `ISSUE_28_COMMIT` the benches call. */
export interface IssueDayPool {
  runBacktest(job: unknown): Promise<{ trades: unknown[]; stats: { cpuMs: number } }>;
  runTrials(
    job: unknown,
    params: Record<string, string>[],
  ): Promise<Array<{ ok: boolean; cpuMs: number; trades?: number; metrics?: { totalReturn: number | null } }>>;
  close(): Promise<void>;
}

/** `createSandboxPool` of packages/core at `commit` (default `ISSUE_28_COMMIT`), extracted from git. */
export function loadIssueDayPool(commit = ISSUE_28_COMMIT): Promise<(options: object) => IssueDayPool> {
  return poolFactoryAt<IssueDayPool>(commit, 'backtests/engine/backtest-pool.ts');
}

/** `createSandboxPool` of the module at `file` (under packages/core/src) of core at `commit`. */
async function poolFactoryAt<P>(commit: string, file: string): Promise<(options: object) => P> {
  const dir = await coreAtCommit(commit);
  const mod = (await import(pathToFileURL(join(dir, 'packages/core/src', file)).href)) as { createSandboxPool: (options: object) => P };
  return mod.createSandboxPool;
}

/**
 * packages/core of `commit`, extracted from git into a temporary folder once (its package.json
 * marks a finished extraction), with this checkout's node_modules linked in. Throws when git or
 * the commit is not available.
 */
async function coreAtCommit(commit: string): Promise<string> {
  const dir = join(tmpdir(), `stratbox-engine-${commit.slice(0, 12)}`);
  if (!existsSync(join(dir, 'packages/core/package.json'))) {
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['-C', ROOT, 'archive', commit, 'packages/core/src', 'packages/core/package.json'], { maxBuffer: 256 * 1024 ** 2 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    for (const link of ['node_modules', 'packages/core/node_modules']) {
      if (!existsSync(join(dir, link))) symlinkSync(join(ROOT, link), join(dir, link), 'dir');
    }
  }
  return dir;
}
