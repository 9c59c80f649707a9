import { mkdirSync, writeFileSync } from 'node:fs';
import { defineStratboxBuild } from '../../tsup.base';
import { bundleGuestScript, GUEST_SCRIPTS } from './src/engine/guest-bundle';

export default defineStratboxBuild(
  {
    index: 'src/index.ts',
    'contract/index': 'src/contract/index.ts',
    'testing/index': 'src/testing/index.ts',
    // The backtest sandbox's child-process entry: forked by createSandboxPool from dist/sandbox/.
    'sandbox/worker-entry': 'src/backtests/engine/backtest-worker-entry.ts',
    // The live-trading sandbox's child-process entry: forked by createLiveSandbox from dist/sandbox/.
    'sandbox/live-worker-entry': 'src/deployments/live-worker-entry.ts',
  },
  {
    external: ['vitest'],
    // The guest runtimes QuickJS evaluates (src/engine/guest), each bundled into one ES module: dist/guest/<name>.js.
    async onSuccess() {
      mkdirSync('dist/guest', { recursive: true });
      for (const name of GUEST_SCRIPTS) writeFileSync(`dist/guest/${name}.js`, bundleGuestScript(`src/engine/guest/${name}.ts`));
    },
  },
);
