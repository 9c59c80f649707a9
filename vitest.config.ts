import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@stratbox/source'] },
  ssr: { resolve: { conditions: ['@stratbox/source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts', 'tests/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for a condition; vitest's default gives it one second, which a loaded
    // machine (CI saw load averages near 30) can miss. A poll ends as soon as its condition holds.
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    // `pnpm coverage:engine`: coverage of the engine's typed modules (the guest runtime and the
    // shared model) by the tests that run them directly in the host; `pnpm test` enforces the floor.
    coverage: {
      provider: 'v8',
      include: ['packages/core/src/engine/**/*.ts'],
      exclude: [
        '**/*.test.ts',
        'packages/core/src/engine/guest-bundle.ts',
        'packages/core/src/engine/guest-script.ts',
        'packages/core/src/engine/guest/warm-up-strategy.ts',
      ],
      reporter: ['text'],
      reportsDirectory: 'node_modules/.coverage/engine',
      thresholds: { lines: 80, branches: 70 },
    },
  },
});
