import { defineStratboxBuild } from '../../tsup.base';

export default defineStratboxBuild(
  {
    index: 'src/index.ts',
    'contract/index': 'src/contract/index.ts',
    'testing/index': 'src/testing/index.ts',
    // The sandbox's child-process entry: forked by createSandboxPool from dist/sandbox/.
    'sandbox/worker-entry': 'src/sandbox/worker-entry.ts',
    // The live-trading sandbox's child-process entry: forked by createLiveSandbox.
    'sandbox/live-worker-entry': 'src/sandbox/live-worker-entry.ts',
  },
  { external: ['vitest'] },
);
