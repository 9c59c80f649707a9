import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { REPO_ROOT } from './harness/paths.js';

describe('the client bundle', () => {
  it('builds for the browser with nothing server-side in it, under 120 KB gzipped', async () => {
    const result = await build({
      entryPoints: [join(REPO_ROOT, 'packages/client/src/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
      conditions: ['@stratbox/source'],
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((i) => i.includes('packages/client/src/create-stratbox-client.ts'))).toBe(true);
    const serverSide = inputs.filter((i) => /node:|kysely|better-sqlite3|express|quickjs|ccxt|stripe|esbuild|packages\/core\//.test(i));
    expect(serverSide).toEqual([]);
    // The client, the contract and zod, nothing else.
    expect(inputs.filter((i) => !/packages\/(client|contract)\/src\/|node_modules\/(\.pnpm\/zod@[^/]+\/node_modules\/)?zod\//.test(i))).toEqual([]);
    const gzipped = gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
    expect(gzipped).toBeLessThan(120 * 1024);
  });
});
