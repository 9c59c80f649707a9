#!/usr/bin/env node
/**
 * Builds the `quickjs-speed` QuickJS build (src/sandbox/quickjs-variants.ts): the WebAssembly
 * of quickjs-emscripten's release build (`@jitl/quickjs-wasmfile-release-sync`, compiled `-Oz`
 * for size) re-optimized for speed by binaryen's wasm-opt (npm `binaryen`, pinned): `-O3` with
 * inlining of the small functions `-Oz` left as calls. Its exports, imports and memory layout
 * are the release build's, so it runs with the same JavaScript glue.
 *
 * Writes `wasm/quickjs-speed.wasm` (not in git) and `wasm/quickjs-speed.json` (what it was built
 * from: the input's SHA-256, binaryen's version, the options); does nothing when those match.
 * Run by the package's `prepare` (on `pnpm install`) and `build`; `--force` builds again.
 * Same inputs, same bytes: the output's SHA-256 is in the .json.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'wasm');
const OUT = join(OUT_DIR, 'quickjs-speed.wasm');
const STAMP = join(OUT_DIR, 'quickjs-speed.json');

/** The features the release build uses (it has no target_features section to detect them from). */
const FEATURES = ['--enable-bulk-memory', '--enable-bulk-memory-opt', '--enable-sign-ext', '--enable-mutable-globals', '--enable-nontrapping-float-to-int'];
/**
 * The optimization: -O3, with inlining up to bigger functions than binaryen's defaults (the
 * interpreter's helpers: value reference counting, property and shape lookups), then
 * -O3 again over the inlined code. Measured in bench/engine.bench.ts (docs/engine.md).
 */
export const WASM_OPT_PASSES = ['-O3', '--inlining-optimizing', '-fimfs=400', '-aimfs=40', '-pii=30', '--converge'];

const require = createRequire(join(ROOT, 'package.json'));

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

function main() {
  const force = process.argv.includes('--force');
  const inputPath = require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
  const input = readFileSync(inputPath);
  const wasmOpt = require.resolve('binaryen/bin/wasm-opt');
  const binaryenVersion = JSON.parse(readFileSync(join(dirname(require.resolve('binaryen')), 'package.json'), 'utf8')).version;
  const recipe = { input: sha256(input), binaryen: binaryenVersion, options: [...FEATURES, ...WASM_OPT_PASSES] };
  if (!force && existsSync(OUT) && existsSync(STAMP)) {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    const same = stamp.input === recipe.input && stamp.binaryen === recipe.binaryen && JSON.stringify(stamp.options) === JSON.stringify(recipe.options);
    if (same && sha256(readFileSync(OUT)) === stamp.output) {
      console.log(`quickjs-speed: up to date (${OUT})`);
      return;
    }
  }
  mkdirSync(OUT_DIR, { recursive: true });
  const tmp = `${OUT}.${process.pid}.tmp`;
  const started = Date.now();
  try {
    execFileSync(process.execPath, [wasmOpt, ...recipe.options, inputPath, '-o', tmp], { stdio: ['ignore', 'inherit', 'inherit'] });
    const output = readFileSync(tmp);
    // The glue needs every export and import of the release build: check them before taking the file.
    const before = WebAssembly.Module.exports(new WebAssembly.Module(input)).map((e) => `${e.name}:${e.kind}`);
    const after = WebAssembly.Module.exports(new WebAssembly.Module(output)).map((e) => `${e.name}:${e.kind}`);
    if (before.join() !== after.join()) throw new Error('quickjs-speed: the optimized module does not export what the release build exports');
    const imports = (bytes) => WebAssembly.Module.imports(new WebAssembly.Module(bytes)).map((e) => `${e.module}.${e.name}:${e.kind}`);
    if (imports(output).some((name) => !imports(input).includes(name)))
      throw new Error('quickjs-speed: the optimized module imports what the release build does not');
    renameSync(tmp, OUT);
    writeFileSync(STAMP, `${JSON.stringify({ ...recipe, output: sha256(output) }, null, 2)}\n`);
    console.log(`quickjs-speed: built ${OUT} (${output.length} bytes) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(tmp, { force: true });
  }
}

main();
