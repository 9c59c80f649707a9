import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './harness/in-process.js';
import { NODE_ARGS, REPO_ROOT } from './harness/paths.js';
import { runNode } from './harness/run-node.js';

/*
 * The README's examples, run exactly as printed: the first ```ts block under each heading is
 * written, unchanged and with no prelude, to a .ts file in a temp dir inside the tests package's
 * node_modules (so `@stratbox/*` resolve to the workspace's packages, from their sources) and run
 * with tsx in a child process, whose working directory is that temp dir (the examples' relative
 * SQLite files land there and go with it). The client's example gets a running service through
 * the environment variables it documents (STRATBOX_URL, STRATBOX_API_KEY).
 */

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The first ```ts block of the section under `## <heading>` (before any other heading of that level). */
function example(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const rest = README.slice(start + heading.length + 5);
  const section = rest.slice(0, rest.search(/\n## /) >>> 0);
  const block = /\n```ts\n([\s\S]*?)\n```\n/.exec(section);
  if (!block?.[1]) throw new Error(`README section "${heading}" has no ts block`);
  return block[1];
}

const CACHE = join(REPO_ROOT, 'tests/node_modules/.cache');
mkdirSync(CACHE, { recursive: true });
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function runExample(heading: string, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(CACHE, 'readme-'));
  dirs.push(dir);
  // an ES module, as in the host app the README has in mind (top-level await)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(join(dir, 'example.ts'), example(heading));
  const run = await runNode([...NODE_ARGS, join(dir, 'example.ts')], { cwd: dir, env, timeoutMs: 150_000 });
  if (run.code !== 0) throw new Error(`The README's "${heading}" example exited with ${run.code ?? run.signal}:\n${run.stderr}\n${run.stdout}`);
  return run.stdout
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('{"level"'));
}

describe("the README's examples, as printed", () => {
  it('Embedding core: creates a user, a strategy and a backtest with only its required fields, and reads the results', { timeout: 180_000 }, async () => {
    const lines = await runExample('Embedding core');
    expect(lines.at(-1)).toMatch(/^completed [1-9]\d* -?\d+(\.\d+)?(e-?\d+)?$/);
  });

  it('Mounting the Express router: serves the router, the host routes and health, then shuts down', { timeout: 180_000 }, async () => {
    const lines = await runExample('Mounting the Express router', { PORT: '0' });
    expect(lines.at(-1)).toContain("status: 'ready'");
  });

  describe('The typed client', () => {
    let service: TestService;
    let apiKey: string;
    beforeAll(async () => {
      service = await startTestService();
      ({ apiKey } = await service.newUser('reader'));
    }, 60_000);
    afterAll(() => service?.close());

    it('creates, lists, reads and deletes a strategy on a running service', { timeout: 120_000 }, async () => {
      const lines = await runExample('The typed client', { STRATBOX_URL: service.baseUrl, STRATBOX_API_KEY: apiKey });
      expect(lines.at(-1)).toBe('SMA cross 1 null');
      const { strategies } = await service.stratbox.strategies.list(
        (await service.stratbox.authenticate({ headers: { authorization: `Bearer ${apiKey}` } }))!.userId,
        {},
      );
      expect(strategies).toEqual([]);
    });
  });
});
