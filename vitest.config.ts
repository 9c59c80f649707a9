import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@stratbox/source'] },
  ssr: { resolve: { conditions: ['@stratbox/source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts', 'tests/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
