import { createRequire } from 'node:module';
import { buildSync } from 'esbuild';

/** The guest scripts: each an entry under engine/guest/ bundled into one ES module (the two runtimes, and the sandbox children's warm-up strategy). */
export const GUEST_SCRIPTS = ['backtest-runtime', 'live-runtime', 'warm-up-strategy'] as const;
export type GuestScriptName = (typeof GUEST_SCRIPTS)[number];

/**
 * Bundles one guest script (engine/guest/<name>.ts and what it imports) into the ES module
 * QuickJS evaluates: no imports left, no Node or DOM API, then lowered to ES5 (below). The build
 * (tsup.config.ts) writes it to dist/guest/<name>.js; sources run bundle it on demand.
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
  return lowerToEs5(result.outputFiles[0]!.text);
}

/**
 * Rewrites the bundle's `let` and `const` as `var` (and the little else ES2015 added that the
 * runtimes use), with TypeScript, which esbuild cannot do. QuickJS checks the temporal dead zone
 * on every read of a lexical variable a closure captures; with `var` the reference strategy runs
 * about 10% faster (bench/engine.bench.ts). The modules stay idiomatic TypeScript, tested as
 * written in the host; the golden corpus and the sandbox tests run the lowered bundle.
 * TypeScript is a build-time tool: this runs when building, or when running from sources.
 */
function lowerToEs5(code: string): string {
  const ts = createRequire(typeof __filename === 'string' ? __filename : import.meta.url)('typescript') as typeof import('typescript');
  return ts.transpileModule(code, { compilerOptions: { target: ts.ScriptTarget.ES5, module: ts.ModuleKind.ESNext, removeComments: true } }).outputText;
}
