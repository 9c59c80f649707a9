import { buildSync } from 'esbuild';

/** The guest scripts: each an entry under engine/guest/ bundled into one ES module (the two runtimes, and the sandbox children's warm-up strategy). */
export const GUEST_SCRIPTS = ['backtest-runtime', 'live-runtime', 'warm-up-strategy'] as const;
export type GuestScriptName = (typeof GUEST_SCRIPTS)[number];

/**
 * Bundles one guest runtime (engine/guest/<name>.ts and what it imports) into the ES module
 * QuickJS evaluates: ES2020 (QuickJS runs it natively), no imports left, no Node or DOM API.
 * The build (tsup.config.ts) writes it to dist/guest/<name>.js; sources run bundle it on demand.
 */
export function bundleGuestScript(entryFile: string): string {
  const result = buildSync({
    entryPoints: [entryFile],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
