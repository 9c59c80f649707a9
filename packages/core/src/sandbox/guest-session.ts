import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { GUEST_RUNTIME_SOURCE } from './guest-runtime.js';
import { newQuickJSInstance, type QuickJSBuild } from './quickjs-variants.js';
import { SandboxError, type SandboxErrorCode } from './sandbox-error.js';

/** Limits of one QuickJS runtime. */
export interface GuestLimits {
  build: QuickJSBuild;
  /** QuickJS heap limit (`runtime.setMemoryLimit`). */
  memoryLimitBytes: number;
  /** QuickJS stack limit (`runtime.setMaxStackSize`). Keep it well under the child's V8 stack. */
  stackLimitBytes: number;
  /** CPU time the job may use, enforced by the interrupt handler. */
  cpuTimeMs: number;
  maxLogLines: number;
  maxLogBytes: number;
}

export interface GuestSessionOptions {
  limits: GuestLimits;
  seed: number;
  /** What `Date.now()` answers before the first candle. */
  startTime: number;
  /** Polled by the interrupt handler; true stops the guest with CANCELLED. */
  isCancelled: () => boolean;
}

type RuntimeFn = 'readMeta' | 'readExports' | 'start' | 'runBatch' | 'drainStates' | 'drainTrades' | 'drainLogs' | 'finish' | 'lastError' | 'describe';

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/**
 * One job's QuickJS world: a fresh WASM instance, a runtime with memory, stack and CPU limits,
 * and a context with the trusted guest runtime loaded. Every call into the guest goes through
 * `call`, which turns an interrupt, an exhausted heap or stack, or anything the guest threw
 * into a `SandboxError` with a clear code.
 */
export interface GuestSession {
  readonly vm: QuickJSContext;
  call(fn: RuntimeFn, ...args: QuickJSHandle[]): QuickJSHandle;
  /** Evaluates the strategy module; returns its namespace handle. */
  loadModule(code: string): QuickJSHandle;
  /** The error the guest recorded when a runtime function answered -1 or null. */
  lastError(): SandboxError;
  /** CPU milliseconds used by the job so far. */
  cpuMs(): number;
  /** True once the guest's state can no longer be trusted (host stack overflow inside WASM). */
  readonly broken: boolean;
  dispose(): void;
}

export async function openGuestSession(options: GuestSessionOptions): Promise<GuestSession> {
  const { limits } = options;
  const wasm: QuickJSWASMModule = await newQuickJSInstance(limits.build);
  const cpuStart = cpuMicros();
  const deadline = cpuStart + limits.cpuTimeMs * 1000;
  let interrupted: SandboxErrorCode | null = null;
  let broken = false;

  const initialHeapBytes = wasm.getWasmMemory().buffer.byteLength;
  /**
   * QuickJS throws `null` when it cannot even allocate the "out of memory" error. A `null`
   * exception after the WASM heap grew by half the limit or more is taken as out of memory.
   */
  const heapExhausted = () => wasm.getWasmMemory().buffer.byteLength - initialHeapBytes >= limits.memoryLimitBytes / 2;
  const outOfMemory = () => new SandboxError('MEMORY_LIMIT', `The strategy ran out of memory (limit ${limits.memoryLimitBytes} bytes)`);
  const runtime: QuickJSRuntime = wasm.newRuntime();
  runtime.setMemoryLimit(limits.memoryLimitBytes);
  runtime.setMaxStackSize(limits.stackLimitBytes);
  // Called every few thousand guest operations: reading the CPU clock is a system call, so it
  // is read at most every 5 ms of wall time.
  let nextCpuCheck = 0;
  runtime.setInterruptHandler(() => {
    if (interrupted) return true;
    if (options.isCancelled()) interrupted = 'CANCELLED';
    else {
      const now = performance.now();
      if (now < nextCpuCheck) return false;
      nextCpuCheck = now + 5;
      if (cpuMicros() > deadline) interrupted = 'TIMEOUT';
    }
    return interrupted !== null;
  });
  const vm = runtime.newContext();
  const fns = new Map<RuntimeFn, QuickJSHandle>();

  function interruptError(code: SandboxErrorCode): SandboxError {
    if (code === 'CANCELLED') return new SandboxError('CANCELLED', 'The backtest was cancelled');
    return new SandboxError('TIMEOUT', `The strategy used more than ${limits.cpuTimeMs} ms of CPU time`);
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
    if (kind === 'MEMORY_LIMIT' || (message.endsWith('non-Error value: null') && heapExhausted())) return outOfMemory();
    if (kind === 'STACK_OVERFLOW') return new SandboxError('STACK_OVERFLOW', `Stack overflow: too deep recursion (${message})`, { details: { stack } });
    return new SandboxError(kind as SandboxErrorCode, message, { details: { stack } });
  }

  function guard<T>(fn: () => T): T {
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

  const session: GuestSession = {
    vm,
    get broken() {
      return broken;
    },
    call(fn, ...args) {
      const handle = fns.get(fn);
      if (!handle) throw new SandboxError('CRASHED', `Guest runtime function ${fn} is missing`);
      return guard(() => unwrap(vm.callFunction(handle, vm.undefined, ...args)));
    },
    loadModule(code) {
      return guard(() => unwrap(vm.evalCode(code, 'strategy.js', { type: 'module' })));
    },
    lastError() {
      const handle = session.call('lastError');
      const [kind, message, stack] = JSON.parse(vm.getString(handle)) as [string, string, string];
      handle.dispose();
      if (kind === 'MEMORY_LIMIT' || (message.endsWith('non-Error value: null') && heapExhausted())) return outOfMemory();
      if (kind === 'STACK_OVERFLOW') return new SandboxError('STACK_OVERFLOW', `Stack overflow: too deep recursion (${message})`, { details: { stack } });
      return new SandboxError((kind || 'STRATEGY_ERROR') as SandboxErrorCode, message, { details: { stack } });
    },
    cpuMs() {
      return (cpuMicros() - cpuStart) / 1000;
    },
    dispose() {
      try {
        for (const h of fns.values()) h.dispose();
        vm.dispose();
        runtime.dispose();
      } catch {
        // A runtime left inconsistent by an interrupted or failed call: the WASM instance is dropped anyway.
      }
    },
  };

  try {
    const factory = guard(() => unwrap(vm.evalCode(GUEST_RUNTIME_SOURCE, 'stratbox-runtime.js')));
    const boot = vm.newString(
      JSON.stringify({ seed: options.seed >>> 0, startTime: options.startTime, maxLogLines: limits.maxLogLines, maxLogBytes: limits.maxLogBytes }),
    );
    const api = guard(() => unwrap(vm.callFunction(factory, vm.undefined, boot)));
    boot.dispose();
    factory.dispose();
    for (const name of [
      'readMeta',
      'readExports',
      'start',
      'runBatch',
      'drainStates',
      'drainTrades',
      'drainLogs',
      'finish',
      'lastError',
      'describe',
    ] as RuntimeFn[]) {
      fns.set(name, vm.getProp(api, name));
    }
    api.dispose();
  } catch (error) {
    session.dispose();
    throw error;
  }
  return session;
}
