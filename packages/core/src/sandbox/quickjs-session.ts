import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { newQuickJSInstance, type QuickJSBuild } from './quickjs-variants.js';
import { SandboxError, type SandboxErrorCode } from './sandbox-error.js';

/** Memory and stack limits of one QuickJS runtime. */
export interface QuickJsLimits {
  build: QuickJSBuild;
  /** QuickJS heap limit (`runtime.setMemoryLimit`). */
  memoryLimitBytes: number;
  /** QuickJS stack limit (`runtime.setMaxStackSize`). Keep it well under the child's V8 stack. */
  stackLimitBytes: number;
}

/**
 * The CPU time the guest may use, enforced by the interrupt handler: one budget for the whole
 * session, counted from its opening (a backtest), or a fresh budget for each call into the guest
 * (a live deployment that runs for months, one candle at a time).
 */
export interface QuickJsCpuBudget {
  timeMs: number;
  per: 'session' | 'call';
}

/**
 * The trusted script a session evaluates before any untrusted code: an ES module (a bundled
 * guest runtime, engine/guest-script.ts) that exports a factory `createRuntime(bootJson) => api`;
 * the session calls it with `JSON.stringify(boot)` and keeps the
 * api's `functions` for `call`. The api must also have `describe(thrown)` (records what was
 * thrown) and `lastError()` (answers the last recorded error as the JSON `[code, message, stack]`):
 * the session uses them to describe a thrown value inside the guest, so the host only reads strings.
 */
export interface QuickJsRuntimeScript<F extends string> {
  script: string;
  /** The name the script's stack frames carry. */
  filename: string;
  boot: unknown;
  functions: readonly F[];
}

export interface QuickJsSessionOptions<F extends string> {
  limits: QuickJsLimits;
  cpu: QuickJsCpuBudget;
  runtime: QuickJsRuntimeScript<F>;
  /** Polled by the interrupt handler; true stops the guest with CANCELLED. */
  isCancelled?: () => boolean;
  /** The message of a CANCELLED error. Default "The run was cancelled". */
  cancelledMessage?: string;
  /**
   * A WASM instance to open the runtime in, instead of a fresh one: the trials of one sweep reuse
   * one (each still has its own runtime, so its own heap, globals and limits). Give a fresh
   * instance after a session that failed: a failure may have left the instance unusable.
   */
  wasm?: QuickJSWASMModule;
}

/**
 * One QuickJS world: a fresh WASM instance (or the one given), a runtime with memory, stack and CPU limits, and a
 * context with the caller's trusted runtime loaded. Guarantees:
 * - every call into the guest goes through `call` or `loadModule`, which turn an interrupt
 *   (TIMEOUT, CANCELLED), an exhausted heap (MEMORY_LIMIT, also when QuickJS could only throw
 *   `null`) or stack (STACK_OVERFLOW), a failure of the WASM instance itself (CRASHED), or
 *   anything the guest threw (described inside the guest: STRATEGY_ERROR, LOG_LIMIT...) into a
 *   `SandboxError`; nothing else escapes;
 * - once `broken` is true (the host's stack overflowed inside WASM, or the instance failed), the
 *   guest's state cannot be trusted: further calls reject with CRASHED;
 * - `dispose` never throws. Not reentrant: host functions the guest calls must not call back in.
 */
export interface QuickJsSession<F extends string> {
  readonly vm: QuickJSContext;
  /** Calls one of the runtime's functions; the caller disposes the returned handle. */
  call(fn: F | 'describe' | 'lastError', ...args: QuickJSHandle[]): QuickJSHandle;
  /** Evaluates an ES module (the compiled strategy); returns its namespace handle. */
  loadModule(code: string, filename?: string): QuickJSHandle;
  /** The error the guest recorded last (when a runtime function reports a failure by its answer). */
  lastError(): SandboxError;
  /** CPU milliseconds of this process since the session opened. */
  cpuMs(): number;
  readonly broken: boolean;
  dispose(): void;
}

/**
 * How far a session's WASM memory may grow: the heap limit, a quarter more and 16 MiB for the
 * runtime's own data and the batches the host copies in. QuickJS's own limit counts allocations,
 * not their bytes, in these builds (no malloc_usable_size), so this cap is what bounds a guest
 * that allocates big arrays; the interrupt handler also stops one whose growth passes the limit.
 */
export function wasmHeapCap(memoryLimitBytes: number): number {
  return Math.ceil(memoryLimitBytes * 1.25) + 16 * 1024 * 1024;
}

/** A QuickJS runtime (limits set) and one context in a WASM instance; the interrupt handler asks `check`. */
export interface QuickJsWorld {
  readonly wasm: QuickJSWASMModule;
  readonly runtime: QuickJSRuntime;
  readonly vm: QuickJSContext;
  /** The interrupt check of the session open in the world, if any. */
  check: (() => boolean) | null;
}

/** Opens a runtime with the memory and stack limits and one context in `wasm`. */
export function openQuickJsWorld(wasm: QuickJSWASMModule, limits: QuickJsLimits): QuickJsWorld {
  const runtime = wasm.newRuntime();
  runtime.setMemoryLimit(limits.memoryLimitBytes);
  runtime.setMaxStackSize(limits.stackLimitBytes);
  const world: QuickJsWorld = { wasm, runtime, vm: undefined as unknown as QuickJSContext, check: null };
  runtime.setInterruptHandler(() => world.check?.() ?? false);
  (world as { vm: QuickJSContext }).vm = runtime.newContext();
  return world;
}

/** What a session bound to a world lets its opener do before handing it out. */
export interface BoundSession<F extends string> {
  session: QuickJsSession<F>;
  /** Runs one call into the guest under the session's limits, turning failures into `SandboxError`s. */
  guard<T>(fn: () => T): T;
  /** The value of a call's result, or its error as a `SandboxError`. */
  unwrap(result: ReturnType<QuickJSContext['callFunction']>): QuickJSHandle;
  /** Calls the runtime script's `createRuntime(bootJson)` and keeps the api's functions. */
  boot(factory: QuickJSHandle, boot: unknown, functions: readonly F[]): void;
  /** Takes the api's functions as handles made elsewhere (a warm start's snapshot taken after a `boot`), instead of booting. */
  adopt(functions: ReadonlyMap<string, QuickJSHandle>): void;
  /** The pointers of the api's function handles `boot` kept, by name (for a snapshot to `adopt` later). */
  functionPointers(): Map<string, number>;
}

export interface BindSessionOptions {
  limits: QuickJsLimits;
  cpu: QuickJsCpuBudget;
  isCancelled?: () => boolean;
  cancelledMessage?: string;
  /** Process CPU microseconds the session's budget and `cpuMs` count from (default: now). */
  cpuStart?: number;
  /** What `dispose` does after releasing the session's own handles (closing the runtime, or nothing for a warm start). */
  release(): void;
}

/**
 * Binds a session (its CPU budget, interrupt check and error mapping) to a world; the world's
 * interrupt handler asks this session from now on.
 */
export function bindQuickJsSession<F extends string>(world: QuickJsWorld, options: BindSessionOptions): BoundSession<F> {
  const { limits, cpu } = options;
  const { wasm, vm } = world;
  const isCancelled = options.isCancelled ?? (() => false);
  const perCall = cpu.per === 'call';
  const cpuStart = options.cpuStart ?? cpuMicros();
  let deadline = perCall ? Infinity : cpuStart + cpu.timeMs * 1000;
  let interrupted: SandboxErrorCode | null = null;
  let broken = false;
  let depth = 0;

  const initialHeapBytes = wasm.getWasmMemory().buffer.byteLength;
  /**
   * QuickJS throws `null` when it cannot even allocate the "out of memory" error. A `null`
   * exception after the WASM heap grew by half the limit or more is taken as out of memory.
   */
  const heapGrowth = () => wasm.getWasmMemory().buffer.byteLength - initialHeapBytes;
  const heapExhausted = () => heapGrowth() >= limits.memoryLimitBytes / 2;
  // Called every few thousand guest operations: reading the CPU clock is a system call, so it
  // is read at most every 5 ms of wall time, with the heap's growth (see `wasmHeapCap`).
  let nextCpuCheck = 0;
  world.check = () => {
    if (interrupted) return true;
    if (isCancelled()) interrupted = 'CANCELLED';
    else {
      const now = performance.now();
      if (now < nextCpuCheck) return false;
      nextCpuCheck = now + 5;
      if (heapGrowth() > limits.memoryLimitBytes) interrupted = 'MEMORY_LIMIT';
      else if (cpuMicros() > deadline) interrupted = 'TIMEOUT';
    }
    return interrupted !== null;
  };
  const fns = new Map<string, QuickJSHandle>();

  function interruptError(code: SandboxErrorCode): SandboxError {
    if (code === 'CANCELLED') return new SandboxError('CANCELLED', options.cancelledMessage ?? 'The run was cancelled');
    if (code === 'MEMORY_LIMIT') return new SandboxError('MEMORY_LIMIT', `The strategy ran out of memory (limit ${limits.memoryLimitBytes} bytes)`);
    return new SandboxError('TIMEOUT', `The strategy used more than ${cpu.timeMs} ms of CPU time${perCall ? ' in one call' : ''}`);
  }

  /** An error the guest described as `[code, message, stack]`. */
  function fromGuest(kind: string, message: string, stack: string): SandboxError {
    if (kind === 'MEMORY_LIMIT' || (message.endsWith('non-Error value: null') && heapExhausted())) {
      return new SandboxError('MEMORY_LIMIT', `The strategy ran out of memory (limit ${limits.memoryLimitBytes} bytes)`);
    }
    if (kind === 'STACK_OVERFLOW') return new SandboxError('STACK_OVERFLOW', `Stack overflow: too deep recursion (${message})`, { details: { stack } });
    return new SandboxError((kind || 'STRATEGY_ERROR') as SandboxErrorCode, message, { details: { stack } });
  }

  function describeError(errorHandle: QuickJSHandle): SandboxError {
    if (interrupted) return interruptError(interrupted);
    const describe = fns.get('describe');
    let kind = 'STRATEGY_ERROR';
    let message = 'The strategy failed';
    let stack = '';
    try {
      if (describe) {
        const r = vm.callFunction(describe, vm.undefined, errorHandle);
        if ('value' in r && r.value) {
          [kind, message, stack] = JSON.parse(vm.getString(r.value)) as [string, string, string];
          r.value.dispose();
        } else r.error?.dispose();
      }
    } catch {
      // Describing failed (out of memory again): keep the generic message.
    }
    if (interrupted) return interruptError(interrupted);
    return fromGuest(kind, message, stack);
  }

  /** Runs one call into the guest (under a fresh CPU budget when the budget is per call). */
  function guard<T>(fn: () => T): T {
    if (broken) throw new SandboxError('CRASHED', 'The sandbox session can no longer be used after an earlier failure');
    const arm = perCall && depth === 0;
    if (arm) {
      deadline = cpuMicros() + cpu.timeMs * 1000;
      interrupted = null;
      nextCpuCheck = 0;
    }
    depth++;
    try {
      return fn();
    } catch (error) {
      if (error instanceof SandboxError) throw error;
      if (error instanceof RangeError && /call stack/i.test(error.message)) {
        broken = true;
        throw new SandboxError('STACK_OVERFLOW', 'Stack overflow: too deep recursion inside a built-in function');
      }
      broken = true;
      if (interrupted) throw interruptError(interrupted);
      if (error instanceof Error && /memory|allocate/i.test(error.message)) throw new SandboxError('MEMORY_LIMIT', 'The strategy ran out of memory');
      throw new SandboxError('CRASHED', `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      depth--;
      if (arm) deadline = Infinity;
    }
  }

  function unwrap(result: ReturnType<QuickJSContext['callFunction']>): QuickJSHandle {
    if ('error' in result && result.error) {
      const err = describeError(result.error);
      result.error.dispose();
      throw err;
    }
    return (result as { value: QuickJSHandle }).value;
  }

  const session: QuickJsSession<F> = {
    vm,
    get broken() {
      return broken;
    },
    call(fn, ...args) {
      const handle = fns.get(fn);
      if (!handle) throw new SandboxError('CRASHED', `Guest runtime function ${fn} is missing`);
      return guard(() => unwrap(vm.callFunction(handle, vm.undefined, ...args)));
    },
    loadModule(code, filename = 'strategy.js') {
      return guard(() => unwrap(vm.evalCode(code, filename, { type: 'module' })));
    },
    lastError() {
      const handle = session.call('lastError');
      const [kind, message, stack] = JSON.parse(vm.getString(handle)) as [string, string, string];
      handle.dispose();
      return fromGuest(kind, message, stack);
    },
    cpuMs() {
      return (cpuMicros() - cpuStart) / 1000;
    },
    dispose() {
      try {
        for (const h of fns.values()) h.dispose();
        fns.clear();
        world.check = null;
        options.release();
      } catch {
        // A runtime left inconsistent by an interrupted or failed call: the WASM instance is dropped anyway.
      }
    },
  };

  function boot(factory: QuickJSHandle, bootValue: unknown, functions: readonly F[]): void {
    const bootHandle = vm.newString(JSON.stringify(bootValue));
    const api = guard(() => unwrap(vm.callFunction(factory, vm.undefined, bootHandle)));
    bootHandle.dispose();
    for (const name of new Set<string>([...functions, 'describe', 'lastError'])) fns.set(name, vm.getProp(api, name));
    api.dispose();
  }

  function adopt(functions: ReadonlyMap<string, QuickJSHandle>): void {
    for (const [name, handle] of functions) fns.set(name, handle);
  }

  function functionPointers(): Map<string, number> {
    return new Map([...fns].map(([name, handle]) => [name, handle.value as unknown as number]));
  }

  return { session, guard, unwrap, boot, adopt, functionPointers };
}

/** Evaluates the trusted runtime script (an ES module) and answers its `createRuntime` factory. */
export function evaluateRuntimeScript<F extends string>(world: QuickJsWorld, bound: BoundSession<F>, runtime: QuickJsRuntimeScript<F>): QuickJSHandle {
  const { vm } = world;
  const ns = bound.guard(() => bound.unwrap(vm.evalCode(runtime.script, runtime.filename, { type: 'module' })));
  const factory = vm.getProp(ns, 'createRuntime');
  ns.dispose();
  return factory;
}

/** CPU microseconds of this process (user and system). */
export function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Opens a session. Rejects with a `SandboxError` when the runtime script fails or exceeds the limits. */
export async function openQuickJsSession<F extends string>(options: QuickJsSessionOptions<F>): Promise<QuickJsSession<F>> {
  const { limits } = options;
  const wasm: QuickJSWASMModule = options.wasm ?? (await newQuickJSInstance(limits.build, wasmHeapCap(limits.memoryLimitBytes)));
  const cpuStart = cpuMicros();
  const world = openQuickJsWorld(wasm, limits);
  const bound = bindQuickJsSession<F>(world, {
    ...options,
    cpuStart,
    release() {
      world.vm.dispose();
      world.runtime.dispose();
    },
  });
  try {
    const factory = evaluateRuntimeScript(world, bound, options.runtime);
    try {
      bound.boot(factory, options.runtime.boot, options.runtime.functions);
    } finally {
      factory.dispose();
    }
  } catch (error) {
    bound.session.dispose();
    throw error;
  }
  return bound.session;
}
