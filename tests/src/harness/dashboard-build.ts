import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './paths.js';
import { runNode } from './run-node.js';

export const DASHBOARD_DIR = resolve(REPO_ROOT, 'examples/dashboard');
export const DASHBOARD_DIST = join(DASHBOARD_DIR, 'dist');

/** What the dashboard's bundle is made of: its own sources and those of the client and contract it compiles in. */
const INPUTS = [
  'examples/dashboard/src',
  'examples/dashboard/index.html',
  'examples/dashboard/vite.config.ts',
  'examples/dashboard/package.json',
  'packages/client/src',
  'packages/contract/src',
];

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestChange(join(path, name))), stat.mtimeMs);
}

/**
 * The built dashboard, built now (with its own Vite, as `pnpm --filter @stratbox/dashboard build`
 * does) when `dist` is missing or older than any of its inputs, so a test never drives a stale
 * page. Throws with Vite's output when the build fails.
 */
export async function ensureDashboardBuilt(): Promise<string> {
  const index = join(DASHBOARD_DIST, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  const changed = Math.max(...INPUTS.map((p) => newestChange(resolve(REPO_ROOT, p))));
  if (built > changed) return DASHBOARD_DIST;
  const vite = join(DASHBOARD_DIR, 'node_modules/vite/bin/vite.js');
  // NODE_ENV: vitest sets `test`, which would build React's development bundle
  const run = await runNode([vite, 'build', '--logLevel', 'warn'], { cwd: DASHBOARD_DIR, env: { NODE_ENV: 'production' }, timeoutMs: 300_000 });
  if (run.code !== 0 || !existsSync(index)) throw new Error(`Building the dashboard failed (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  return DASHBOARD_DIST;
}
