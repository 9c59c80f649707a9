import { vi } from 'vitest';

// Imported first by browser.test.ts, before the suites register their tests: a browser test on a
// loaded machine (CI saw load averages near 30) gets minutes, not the default half minute.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 300_000 });
