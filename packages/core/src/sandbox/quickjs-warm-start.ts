import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import {
  bindQuickJsSession,
  cpuMicros,
  evaluateRuntimeScript,
  openQuickJsWorld,
  type QuickJsCpuBudget,
  type QuickJsLimits,
  type QuickJsRuntimeScript,
  type QuickJsSession,
  type QuickJsWorld,
  wasmHeapCap,
} from './quickjs-session.js';
import { newQuickJSInstance } from './quickjs-variants.js';
import { SandboxError } from './sandbox-error.js';

/** What one session of a warm start is given: its CPU budget, its boot value and its cancel check. */
export interface WarmSessionOptions {
  cpu: QuickJsCpuBudget;
  /** Given to the runtime script's `createRuntime` (JSON), after the restore. */
  boot: unknown;
  isCancelled?: () => boolean;
  cancelledMessage?: string;
  /**
   * Names what the caller loads into the session after it opens (its boot value and the
   * strategy's source, say): see `WarmSession.loaded` and `keep`. None: nothing is kept.
   */
  loadKey?: string;
}

/**
 * A session of a warm start. A caller that loads the same things in session after session (a
 * sweep's trials: one strategy, one boot value) names them with `loadKey`; once loaded, it hands
 * `keep` the handles it needs afterwards and what it learnt while loading, and the warm start may
 * take a second snapshot there. A later session with that key then starts from it: `loaded`
 * holds fresh handles to the same values and what was kept, and the caller loads nothing.
 */
export interface WarmSession<F extends string> extends QuickJsSession<F> {
  /** Set when this session started from the snapshot kept for its `loadKey`. */
  readonly loaded: { handles: QuickJSHandle[]; value: unknown } | null;
  /**
   * Right after loading what `loadKey` names, before anything else runs in the guest: the
   * handles to keep (not disposed before this call) and a value to hand back with them. The
   * snapshot is taken when the previous session had the same key, so a key seen once costs no copy.
   */
  keep(handles: QuickJSHandle[], value: unknown): void;
}

export interface QuickJsWarmStartOptions<F extends string> {
  limits: QuickJsLimits;
  runtime: Omit<QuickJsRuntimeScript<F>, 'boot'>;
}

/**
 * Sessions of one runtime script, one after another, that start warm: the first builds a WASM
 * instance, opens the runtime (memory and stack limits set) and its context and evaluates the
 * script, then copies the instance's whole linear memory; every later session first sets that
 * memory back byte for byte (and the few host-side tables quickjs-emscripten keeps about the
 * runtime: host function references, cached handles), so it starts from exactly the state the
 * first one had before its `createRuntime` call. Each session then boots the runtime with its own
 * boot value (seed, clock), loads its own strategy and gets its own CPU budget; module
 * variables, globals, the seeded random and the heap of one session never reach the next.
 *
 * Guarantees:
 * - one session at a time: `open` rejects with CRASHED while a session is open;
 * - a session is a `QuickJsSession` with the same limits as `openQuickJsSession`'s: the memory
 *   and stack limits are the runtime's (restored with the memory), the WASM memory cap is the
 *   instance's, the interrupt handler asks the session open now;
 * - when the memory grew during a session, a session broke (a failure inside WASM) or the
 *   host-side tables changed in a way a restore would not undo, the next session builds afresh;
 *   after a session that failed, the caller should `discard` (the next one builds afresh);
 * - the first session's `cpuMs` and CPU budget count the build; the others' count from the restore.
 */
export interface QuickJsWarmStart<F extends string> {
  open(options: WarmSessionOptions): Promise<WarmSession<F>>;
  /** Drops the instance: the next session builds afresh. */
  discard(): void;
  /** Instances built, sessions started from a restore, and of those from a snapshot after loading, so far. */
  stats(): { builds: number; restores: number; loadedRestores: number };
}

interface HostRefInternals {
  nextId: number;
  freelist: number[];
  groups: Map<number, Map<number, unknown>>;
}

/** The context's lazily cached handles (quickjs-emscripten-core 0.32): set back with the memory. */
const CACHED_HANDLES = ['_global', '_BigInt', '_Symbol', '_SymbolIterator', '_SymbolAsyncIterator'] as const;

/** A world's memory and the host-side tables quickjs-emscripten keeps about it, at one moment. */
interface MemorySnapshot {
  /** The memory up to its last page that is not all zero, and its length when copied. */
  head: Uint8Array;
  length: number;
  /** Per 64 KiB page of `head`, 1 when it is all zero (most of it: the C stack's unused part). */
  zeroPages: Uint8Array;
  hostRefs: { nextId: number; freelist: number[]; groups: [number, [number, unknown][]][] };
  cached: unknown[];
  scopeSize: number;
}

/** The world with the runtime script evaluated, and its snapshot. */
interface Built {
  world: QuickJsWorld;
  factory: QuickJSHandle;
  memory: MemorySnapshot;
}

/** The snapshot after a session booted and loaded what `key` names, with what it kept. */
interface Loaded {
  key: string;
  memory: MemorySnapshot;
  /** Pointers of the runtime's functions (the boot's handles) and of the kept handles. */
  functions: Map<string, number>;
  handles: number[];
  value: unknown;
}

/** A new handle to a value still held in the context's memory (a pointer of a snapshot's handle). */
function handleAt(vm: QuickJSContext, pointer: number): QuickJSHandle {
  const memory = (vm as unknown as { memory?: { heapValueHandle?: (ptr: number) => QuickJSHandle } }).memory;
  if (typeof memory?.heapValueHandle !== 'function') {
    throw new SandboxError('CRASHED', 'quickjs-emscripten keeps its value handles differently than this warm start expects');
  }
  return memory.heapValueHandle(pointer);
}

/** The pointer a handle holds. */
function pointerOf(handle: QuickJSHandle): number {
  return handle.value as unknown as number;
}

const PAGE = 65_536;
const ZERO_PAGE = new Uint8Array(PAGE);

function hostRefsOf(runtime: QuickJSRuntime): HostRefInternals {
  const refs = (runtime as unknown as { hostRefs?: Partial<HostRefInternals> }).hostRefs;
  if (!refs || typeof refs.nextId !== 'number' || !Array.isArray(refs.freelist) || !(refs.groups instanceof Map)) {
    throw new SandboxError('CRASHED', 'quickjs-emscripten keeps its host references differently than this warm start expects');
  }
  return refs as HostRefInternals;
}

/** How many lifetimes the context's own scope holds (handles it made for itself), or -1 when unknown. */
function scopeSizeOf(vm: QuickJSContext): number {
  const set = (vm as unknown as { memory?: { scope?: { _disposables?: { value?: unknown } } } }).memory?.scope?._disposables?.value;
  return set instanceof Set ? set.size : -1;
}

/** The end of the last 64 KiB page of `bytes` at or past `floor` that is not all zero (`floor` when none is). */
function lastNonZeroPage(bytes: Uint8Array, floor: number): number {
  let end = bytes.length;
  while (end - PAGE >= floor && isZeroPage(bytes, end - PAGE)) end -= PAGE;
  return Math.max(end, floor);
}

function isZeroPage(bytes: Uint8Array, at: number): boolean {
  return Buffer.compare(bytes.subarray(at, at + PAGE), ZERO_PAGE) === 0;
}

function snapshot(world: QuickJsWorld): MemorySnapshot {
  const bytes = new Uint8Array(world.wasm.getWasmMemory().buffer);
  const end = lastNonZeroPage(bytes, 0);
  const zeroPages = new Uint8Array(end / PAGE);
  for (let p = 0; p < zeroPages.length; p++) zeroPages[p] = isZeroPage(bytes, p * PAGE) ? 1 : 0;
  const refs = hostRefsOf(world.runtime);
  const vm = world.vm as unknown as Record<string, unknown>;
  return {
    head: bytes.slice(0, end),
    length: bytes.length,
    zeroPages,
    hostRefs: { nextId: refs.nextId, freelist: refs.freelist.slice(), groups: [...refs.groups].map(([id, group]) => [id, [...group]]) },
    cached: CACHED_HANDLES.map((key) => vm[key]),
    scopeSize: scopeSizeOf(world.vm),
  };
}

/** Sets the memory and the host-side tables back to the snapshot; false when that would not give the snapshot's state. */
function restore(world: QuickJsWorld, built: MemorySnapshot): boolean {
  const bytes = new Uint8Array(world.wasm.getWasmMemory().buffer);
  if (bytes.length !== built.length || scopeSizeOf(world.vm) !== built.scopeSize) return false;
  // Past the snapshot's last page that is not all zero, zero what the session wrote: up to its own last such page.
  const end = lastNonZeroPage(bytes, built.head.length);
  // The snapshot's pages with data are copied back; its zero pages are only read, and zeroed when a session wrote them.
  const { head, zeroPages } = built;
  for (let p = 0; p < zeroPages.length; ) {
    let q = p + 1;
    if (zeroPages[p] === 0) {
      while (q < zeroPages.length && zeroPages[q] === 0) q++;
      bytes.set(head.subarray(p * PAGE, q * PAGE), p * PAGE);
    } else if (!isZeroPage(bytes, p * PAGE)) bytes.fill(0, p * PAGE, q * PAGE);
    p = q;
  }
  if (end > head.length) bytes.fill(0, head.length, end);
  const refs = hostRefsOf(world.runtime);
  refs.nextId = built.hostRefs.nextId;
  refs.freelist = built.hostRefs.freelist.slice();
  refs.groups = new Map(built.hostRefs.groups.map(([id, group]) => [id, new Map(group)]));
  const vm = world.vm as unknown as Record<string, unknown>;
  CACHED_HANDLES.forEach((key, k) => {
    vm[key] = built.cached[k];
  });
  return true;
}

/** Creates a warm start (see `QuickJsWarmStart`). Builds nothing until the first `open`. */
export function createQuickJsWarmStart<F extends string>(options: QuickJsWarmStartOptions<F>): QuickJsWarmStart<F> {
  const { limits, runtime } = options;
  let built: Built | null = null;
  let loaded: Loaded | null = null;
  /** The `loadKey` of the session before: a second snapshot is taken for a key seen twice in a row. */
  let lastKey: string | undefined;
  let open = false;
  let builds = 0;
  let restores = 0;
  let loadedRestores = 0;
  const drop = () => {
    built = null;
    loaded = null;
  };

  return {
    async open(session) {
      if (open) throw new SandboxError('CRASHED', 'A warm start runs one session at a time');
      open = true;
      const cpuStart = cpuMicros();
      const key = session.loadKey;
      let bound: ReturnType<typeof bindQuickJsSession<F>> | undefined;
      try {
        const release = () => {
          open = false;
          if (bound?.session.broken) drop();
        };
        let fromLoaded: { handles: QuickJSHandle[]; value: unknown } | null = null;
        if (built !== null && loaded !== null && key !== undefined && loaded.key === key && restore(built.world, loaded.memory)) {
          restores++;
          loadedRestores++;
          const { world } = built;
          bound = bindQuickJsSession<F>(world, { ...session, limits, cpuStart, release });
          bound.adopt(new Map([...loaded.functions].map(([name, pointer]) => [name, handleAt(world.vm, pointer)])));
          fromLoaded = { handles: loaded.handles.map((pointer) => handleAt(world.vm, pointer)), value: loaded.value };
        } else {
          if (built !== null && restore(built.world, built.memory)) restores++;
          else drop();
          if (built === null) {
            const world = openQuickJsWorld(await newQuickJSInstance(limits.build, wasmHeapCap(limits.memoryLimitBytes)), limits);
            builds++;
            bound = bindQuickJsSession<F>(world, { ...session, limits, cpuStart, release });
            const factory = evaluateRuntimeScript(world, bound, { ...runtime, boot: null });
            built = { world, factory, memory: snapshot(world) };
          } else {
            bound = bindQuickJsSession<F>(built.world, { ...session, limits, cpuStart, release });
          }
          bound.boot(built.factory, session.boot, runtime.functions);
        }
        const world = built.world;
        const boundNow = bound;
        const keepHere = key !== undefined && fromLoaded === null && lastKey === key;
        lastKey = key;
        const s = boundNow.session;
        return {
          vm: s.vm,
          call: s.call,
          loadModule: s.loadModule,
          lastError: s.lastError,
          cpuMs: s.cpuMs,
          get broken() {
            return s.broken;
          },
          dispose: s.dispose,
          loaded: fromLoaded,
          keep(handles, value) {
            if (!keepHere || key === undefined || s.broken || built?.world !== world) return;
            loaded = { key, memory: snapshot(world), functions: boundNow.functionPointers(), handles: handles.map(pointerOf), value };
          },
        };
      } catch (error) {
        drop();
        if (bound) bound.session.dispose();
        open = false;
        throw error;
      }
    },
    discard() {
      drop();
    },
    stats() {
      return { builds, restores, loadedRestores };
    },
  };
}
