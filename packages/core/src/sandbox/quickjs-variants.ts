import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSSyncVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';

/**
 * The QuickJS builds the engine can run: `quickjs` is Fabrice Bellard's QuickJS, `quickjs-ng`
 * the community fork. Both are the release, sync, separate-.wasm builds of quickjs-emscripten.
 * `quickjs` is the default: it ran the reference strategy faster in bench/engine.bench.ts.
 */
export type QuickJSBuild = 'quickjs' | 'quickjs-ng';

export const DEFAULT_QUICKJS_BUILD: QuickJSBuild = 'quickjs';

const PACKAGES: Record<QuickJSBuild, string> = {
  quickjs: '@jitl/quickjs-wasmfile-release-sync',
  'quickjs-ng': '@jitl/quickjs-ng-wasmfile-release-sync',
};

async function importVariant(build: QuickJSBuild): Promise<QuickJSSyncVariant> {
  const mod = (build === 'quickjs' ? await import('@jitl/quickjs-wasmfile-release-sync') : await import('@jitl/quickjs-ng-wasmfile-release-sync')) as {
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

function load(build: QuickJSBuild): Promise<Loaded> {
  let p = loaded.get(build);
  if (!p) {
    p = (async () => {
      const require = createRequire(currentFile());
      const bytes = await readFile(require.resolve(`${PACKAGES[build]}/wasm`));
      const [variant, wasm] = await Promise.all([importVariant(build), WebAssembly.compile(bytes)]);
      return { variant, wasm };
    })();
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
