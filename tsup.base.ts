import { defineConfig, type Options } from 'tsup';

/**
 * The build every package shares: ESM + CJS + `.d.ts` for Node 20, with source maps, into a
 * clean `dist/`. Each package's `tsup.config.ts` calls it with its entries (output path without
 * extension -> source file) and, rarely, an option of its own.
 */
export function defineStratboxBuild(entry: Record<string, string>, options: Omit<Options, 'entry'> = {}) {
  return defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    ...options,
  });
}
