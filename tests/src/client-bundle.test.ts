import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { join } from 'node:path';
import { REPO_ROOT } from './harness/paths.js';

describe('the client bundle', () => {
  it('builds for the browser with nothing server-side in it', async () => {
    const result = await build({
      entryPoints: [join(REPO_ROOT, 'packages/client/src/index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      conditions: ['@stratbox/source'],
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((i) => i.includes('packages/client/src/create-stratbox-client.ts'))).toBe(true);
    const serverSide = inputs.filter((i) => /node:|kysely|better-sqlite3|express|quickjs|ccxt|stripe|packages\/core\/src\/(?!contract\/)/.test(i));
    expect(serverSide).toEqual([]);
  });
});
