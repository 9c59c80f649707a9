import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSSyncVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { findQuickJsSpeedWasm } from './quickjs-speed-wasm.js';
import { SandboxError } from './sandbox-error.js';

/**
 * The QuickJS builds the engine can run:
 * - `quickjs-speed` (the default): Fabrice Bellard's QuickJS from quickjs-emscripten's release
 *   build, its WebAssembly re-optimized for speed by binaryen when the package is built
 *   (`scripts/build-quickjs-speed.mjs`, the same JavaScript glue and exports);
 * - `quickjs`: that release build as published (compiled `-Oz`, for size);
 * - `quickjs-ng`: the community fork, release build as published.
 * All three are the sync, separate-.wasm builds of quickjs-emscripten 0.32.
 */
export type QuickJSBuild = 'quickjs-speed' | 'quickjs' | 'quickjs-ng';

export const QUICKJS_BUILDS: readonly QuickJSBuild[] = ['quickjs-speed', 'quickjs', 'quickjs-ng'];

/** `quickjs-speed`: it ran the reference strategy fastest in bench/engine.bench.ts. */
export const DEFAULT_QUICKJS_BUILD: QuickJSBuild = 'quickjs-speed';

/** `value` when it names a build, else the default (a child's command-line argument). */
export function quickJSBuildOr(value: unknown): QuickJSBuild {
  return QUICKJS_BUILDS.includes(value as QuickJSBuild) ? (value as QuickJSBuild) : DEFAULT_QUICKJS_BUILD;
}

async function importVariant(build: QuickJSBuild): Promise<QuickJSSyncVariant> {
  const mod = (build === 'quickjs-ng' ? await import('@jitl/quickjs-ng-wasmfile-release-sync') : await import('@jitl/quickjs-wasmfile-release-sync')) as {
    default: QuickJSSyncVariant | { default: QuickJSSyncVariant };
  };
  const v = mod.default as QuickJSSyncVariant & { default?: QuickJSSyncVariant };
  return v.type === 'sync' ? v : (v.default as QuickJSSyncVariant);
}

interface Loaded {
  variant: QuickJSSyncVariant;
  wasm: WebAssembly.Module;
}

const loaded = new Map<QuickJSBuild, Promise<Loaded>>();

function currentFile(): string {
  return typeof __filename === 'string' ? __filename : new URL(import.meta.url).pathname;
}

/** The bytes of a build's .wasm file. */
async function readWasm(build: QuickJSBuild): Promise<Buffer<ArrayBuffer>> {
  if (build === 'quickjs-speed') {
    const path = findQuickJsSpeedWasm();
    if (path === null) {
      throw new SandboxError(
        'CRASHED',
        'The quickjs-speed QuickJS build (wasm/quickjs-speed.wasm) was not found: @stratbox/core writes it when installed or built (pnpm --filter @stratbox/core build:quickjs); if @stratbox/core is bundled into your app, copy node_modules/@stratbox/core/wasm next to the bundle (README, "Bundling a host app"), or choose the build \'quickjs\'',
      );
    }
    return readFile(path);
  }
  const require = createRequire(currentFile());
  return readFile(require.resolve(`${build === 'quickjs-ng' ? '@jitl/quickjs-ng-wasmfile-release-sync' : '@jitl/quickjs-wasmfile-release-sync'}/wasm`));
}

function load(build: QuickJSBuild): Promise<Loaded> {
  let p = loaded.get(build);
  if (!p) {
    p = (async () => {
      const bytes = await readWasm(build);
      const [variant, wasm] = await Promise.all([importVariant(build), WebAssembly.compile(bytes)]);
      return { variant, wasm };
    })();
    p.catch(() => loaded.delete(build));
    loaded.set(build, p);
  }
  return p;
}

/**
 * A brand-new WebAssembly instance of the build, with its own linear memory. The compiled
 * module is cached, so this costs a few milliseconds; a fresh instance per job means a job
 * that grew the WASM heap (a huge typed array, quickjs-emscripten #271) leaves nothing behind.
 * With `maxHeapBytes` the linear memory cannot grow by more than that (up to 2 GiB in all):
 * an allocation past it fails inside QuickJS as "out of memory".
 */
export async function newQuickJSInstance(build: QuickJSBuild, maxHeapBytes?: number): Promise<QuickJSWASMModule> {
  const { variant, wasm } = await load(build);
  if (maxHeapBytes === undefined) return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule: wasm }));
  // The build imports its linear memory: give one that cannot grow past the cap.
  const pages = await initialPages(build);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: Math.min(MAX_PAGES, pages + Math.ceil(maxHeapBytes / WASM_PAGE)) });
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule: wasm, wasmMemory: memory }));
}

const WASM_PAGE = 65_536;
/** 2 GiB: the most the builds' 32-bit heap addresses (Emscripten's default maximum). */
const MAX_PAGES = 32_768;
const initial = new Map<QuickJSBuild, Promise<number>>();

/** The pages a build's linear memory starts with (read once from an instance it makes itself). */
function initialPages(build: QuickJSBuild): Promise<number> {
  let p = initial.get(build);
  if (!p) {
    p = newQuickJSInstance(build).then((instance) => instance.getWasmMemory().buffer.byteLength / WASM_PAGE);
    initial.set(build, p);
  }
  return p;
}
