import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'contract/index': 'src/contract/index.ts', 'testing/index': 'src/testing/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  external: ['vitest'],
});
