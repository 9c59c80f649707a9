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
  open(options: WarmSessionOptions): Promise<QuickJsSession<F>>;
  /** Drops the instance: the next session builds afresh. */
  discard(): void;
  /** Instances built and sessions started from a restore, so far. */
  stats(): { builds: number; restores: number };
}

interface HostRefInternals {
  nextId: number;
  freelist: number[];
  groups: Map<number, Map<number, unknown>>;
}

/** The context's lazily cached handles (quickjs-emscripten-core 0.32): set back with the memory. */
const CACHED_HANDLES = ['_global', '_BigInt', '_Symbol', '_SymbolIterator', '_SymbolAsyncIterator'] as const;

interface Built {
  world: QuickJsWorld;
  factory: QuickJSHandle;
  /** The memory up to its last page that is not all zero, and its length when copied. */
  head: Uint8Array;
  length: number;
  hostRefs: { nextId: number; freelist: number[]; groups: [number, [number, unknown][]][] };
  cached: unknown[];
  scopeSize: number;
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
  while (end - PAGE >= floor && Buffer.compare(bytes.subarray(end - PAGE, end), ZERO_PAGE) === 0) end -= PAGE;
  return Math.max(end, floor);
}

function snapshot(world: QuickJsWorld, factory: QuickJSHandle): Built {
  const bytes = new Uint8Array(world.wasm.getWasmMemory().buffer);
  const end = lastNonZeroPage(bytes, 0);
  const refs = hostRefsOf(world.runtime);
  const vm = world.vm as unknown as Record<string, unknown>;
  return {
    world,
    factory,
    head: bytes.slice(0, end),
    length: bytes.length,
    hostRefs: { nextId: refs.nextId, freelist: refs.freelist.slice(), groups: [...refs.groups].map(([id, group]) => [id, [...group]]) },
    cached: CACHED_HANDLES.map((key) => vm[key]),
    scopeSize: scopeSizeOf(world.vm),
  };
}

/** Sets the memory and the host-side tables back to the snapshot; false when that would not give the snapshot's state. */
function restore(built: Built): boolean {
  const { world } = built;
  const bytes = new Uint8Array(world.wasm.getWasmMemory().buffer);
  if (bytes.length !== built.length || scopeSizeOf(world.vm) !== built.scopeSize) return false;
  // Past the snapshot's last page that is not all zero, zero what the session wrote: up to its own last such page.
  const end = lastNonZeroPage(bytes, built.head.length);
  bytes.set(built.head);
  if (end > built.head.length) bytes.fill(0, built.head.length, end);
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
  let open = false;
  let builds = 0;
  let restores = 0;

  return {
    async open(session) {
      if (open) throw new SandboxError('CRASHED', 'A warm start runs one session at a time');
      open = true;
      const cpuStart = cpuMicros();
      let bound: ReturnType<typeof bindQuickJsSession<F>> | undefined;
      try {
        if (built !== null && restore(built)) restores++;
        else built = null;
        const release = () => {
          open = false;
          if (bound?.session.broken) built = null;
        };
        if (built === null) {
          const world = openQuickJsWorld(await newQuickJSInstance(limits.build, wasmHeapCap(limits.memoryLimitBytes)), limits);
          builds++;
          bound = bindQuickJsSession<F>(world, { ...session, limits, cpuStart, release });
          const factory = evaluateRuntimeScript(world, bound, { ...runtime, boot: null });
          built = snapshot(world, factory);
        } else {
          bound = bindQuickJsSession<F>(built.world, { ...session, limits, cpuStart, release });
        }
        bound.boot(built.factory, session.boot, runtime.functions);
        return bound.session;
      } catch (error) {
        built = null;
        if (bound) bound.session.dispose();
        open = false;
        throw error;
      }
    },
    discard() {
      built = null;
    },
    stats() {
      return { builds, restores };
    },
  };
}
