import { describe, expect, it } from 'vitest';
import type { QuickJSHandle } from 'quickjs-emscripten-core';
import type { QuickJsSession } from './quickjs-session.js';
import { createQuickJsWarmStart } from './quickjs-warm-start.js';
import { DEFAULT_QUICKJS_BUILD } from './quickjs-variants.js';

/**
 * A small trusted runtime: `run(code, host?)` evaluates code as a script (with `host` as a global
 * when given) and answers its value as a string; errors described as the engine's guest does.
 */
const RUNTIME = `
let last = '["STRATEGY_ERROR","",""]';
export function createRuntime(bootJson) {
  const boot = JSON.parse(bootJson);
  globalThis.bootSeed = boot.seed;
  return {
    run(code, host) { if (host) globalThis.host = host; return String((0, eval)(code)); },
    describe(e) {
      const msg = e && e.message;
      const kind = e && e.name === 'InternalError' && msg === 'out of memory' ? 'MEMORY_LIMIT'
        : (e && e.name === 'InternalError' && msg === 'stack overflow') || (e instanceof RangeError && /call stack/.test(msg)) ? 'STACK_OVERFLOW'
        : 'STRATEGY_ERROR';
      return (last = JSON.stringify([kind, String(msg), String(e && e.stack || '')]));
    },
    lastError() { return last; },
  };
}`;

type Fn = 'run';
const limits = { build: DEFAULT_QUICKJS_BUILD, memoryLimitBytes: 32 * 1024 * 1024, stackLimitBytes: 256 * 1024 };
const cpu = { timeMs: 2000, per: 'session' as const };

function warmStart() {
  return createQuickJsWarmStart<Fn>({ limits, runtime: { script: RUNTIME, filename: 'test-runtime.js', functions: ['run'] } });
}

function run(session: QuickJsSession<Fn>, code: string, host?: QuickJSHandle): string {
  const arg = session.vm.newString(code);
  try {
    const h = host ? session.call('run', arg, host) : session.call('run', arg);
    const text = session.vm.getString(h);
    h.dispose();
    return text;
  } finally {
    arg.dispose();
  }
}

/** The session's whole WASM memory, copied (through the Emscripten module quickjs-emscripten-core 0.32 keeps). */
function memoryOf(session: QuickJsSession<Fn>): Uint8Array {
  const module = (session.vm as unknown as { module: { quickjsEmscriptenInit(log: () => void): { getWasmMemory(): WebAssembly.Memory } } }).module;
  return new Uint8Array(module.quickjsEmscriptenInit(() => {}).getWasmMemory().buffer).slice();
}

describe('warm start: sessions restored from a snapshot of the runtime', () => {
  it('a session that changed globals and filled the heap leaves the next one byte-identical memory', async () => {
    const warm = warmStart();
    const first = await warm.open({ cpu, boot: { seed: 7 } });
    const atStart = memoryOf(first);
    // Module-level-like state, a global, Math.random drawn, about 4 MB of arrays kept: all within the first 16 MiB of memory.
    expect(
      run(
        first,
        'globalThis.kept = []; for (let i = 0; i < 8; i++) kept.push(new Float64Array(60000).fill(i)); globalThis.count = 41; Math.random(); Math.random(); String(kept.length)',
      ),
    ).toBe('8');
    first.dispose();
    const second = await warm.open({ cpu, boot: { seed: 7 } });
    expect(warm.stats()).toEqual({ builds: 1, restores: 1, loadedRestores: 0 });
    const again = memoryOf(second);
    expect(again.length).toBe(atStart.length);
    expect(Buffer.compare(again, atStart)).toBe(0);
    expect(run(second, 'typeof globalThis.kept + " " + typeof globalThis.count + " " + globalThis.bootSeed')).toBe('undefined undefined 7');
    second.dispose();
  });

  it('a host function made in each session is forgotten with it: the host keeps no reference per session', async () => {
    const warm = warmStart();
    const refsOf = (s: QuickJsSession<Fn>) => {
      const groups = (s.vm.runtime as unknown as { hostRefs: { groups: Map<number, Map<number, unknown>> } }).hostRefs.groups;
      return [...groups.values()].reduce((n, g) => n + g.size, 0);
    };
    let counts: number[] = [];
    for (let k = 0; k < 20; k++) {
      const session = await warm.open({ cpu, boot: { seed: k } });
      const fn = session.vm.newFunction('hostAdd', (a) => session.vm.newNumber(session.vm.getNumber(a) + 1));
      expect(run(session, 'host(41)', fn)).toBe('42');
      fn.dispose();
      counts.push(refsOf(session));
      session.dispose();
    }
    expect(warm.stats()).toEqual({ builds: 1, restores: 19, loadedRestores: 0 });
    counts = [...new Set(counts)];
    expect(counts).toHaveLength(1);
  });

  it('sessions that load the same thing start with it loaded from the second on, in the state it had right after loading', async () => {
    const warm = warmStart();
    // "Loading": a module whose top level draws a random and logs into a global, with a counter its function moves.
    const MODULE = `let calls = 0; globalThis.loadLog = (globalThis.loadLog || '') + 'loaded;'; export const drawn = Math.random(); export function next() { calls++; return calls + '/' + globalThis.loadLog; }`;
    const open = async (loadKey: string) => {
      const session = await warm.open({ cpu, boot: { seed: 7 }, loadKey });
      let ns: QuickJSHandle;
      if (session.loaded) ns = session.loaded.handles[0]!;
      else {
        ns = session.loadModule(MODULE, 'strategy.js');
        session.keep([ns], { note: 'kept with the module' });
      }
      return { session, ns, atStart: memoryOf(session) };
    };
    const next = (session: QuickJsSession<Fn>, ns: QuickJSHandle) => {
      const fn = session.vm.getProp(ns, 'next');
      const answer = session.vm.getString(session.vm.unwrapResult(session.vm.callFunction(fn, session.vm.undefined)));
      fn.dispose();
      return answer;
    };
    const drawn = (session: QuickJsSession<Fn>, ns: QuickJSHandle) => session.vm.getNumber(session.vm.getProp(ns, 'drawn'));

    const sessions = [];
    for (let k = 0; k < 4; k++) {
      const opened = await open('module A');
      const { session, ns } = opened;
      // Each session sees the module fresh: its counter at 0, loaded once, the same first draw.
      expect([next(session, ns), next(session, ns)]).toEqual(['1/loaded;', '2/loaded;']);
      sessions.push({ loaded: session.loaded?.value ?? null, drawn: drawn(session, ns), atStart: opened.atStart });
      run(session, 'globalThis.loadLog += "changed;"; globalThis.junk = new Array(100000).fill(1); 1');
      ns.dispose();
      session.dispose();
    }
    // The first two loaded the module (the second kept it); the others started with it loaded.
    expect(sessions.map((s) => s.loaded)).toEqual([null, null, { note: 'kept with the module' }, { note: 'kept with the module' }]);
    expect(warm.stats()).toEqual({ builds: 1, restores: 3, loadedRestores: 2 });
    expect(new Set(sessions.map((s) => s.drawn)).size).toBe(1);
    // Those that started loaded start from the very bytes the second had right after loading.
    expect(Buffer.compare(sessions[2]!.atStart, sessions[1]!.atStart)).toBe(0);
    expect(Buffer.compare(sessions[3]!.atStart, sessions[1]!.atStart)).toBe(0);

    // Another key loads afresh, and a session with no key starts from the runtime alone.
    const other = await open('module B');
    expect(other.session.loaded).toBeNull();
    expect(next(other.session, other.ns)).toBe('1/loaded;');
    other.ns.dispose();
    other.session.dispose();
    const plain = await warm.open({ cpu, boot: { seed: 7 } });
    expect(run(plain, 'typeof globalThis.loadLog')).toBe('undefined');
    plain.dispose();
  });

  it('after a restore the memory limit, the interrupt (CPU budget) and the stack limit still hold', async () => {
    const warm = warmStart();
    const restored = async () => {
      // Open and close a session first, so that the one answered starts from a restore.
      (await warm.open({ cpu, boot: { seed: 1 } })).dispose();
      const before = warm.stats().restores;
      const session = await warm.open({ cpu, boot: { seed: 1 } });
      expect(warm.stats().restores).toBe(before + 1);
      return session;
    };
    const codeOf = (session: QuickJsSession<Fn>, code: string) => {
      try {
        run(session, code);
        return 'ok';
      } catch (error) {
        return (error as { code?: string }).code;
      } finally {
        session.dispose();
        warm.discard();
      }
    };
    expect(codeOf(await restored(), 'const a = []; for (;;) a.push({ x: a.length, y: [a.length] });')).toBe('MEMORY_LIMIT');
    expect(codeOf(await restored(), 'for (;;) {}')).toBe('TIMEOUT');
    expect(codeOf(await restored(), 'function f(n) { return f(n + 1) + 1; } f(0)')).toBe('STACK_OVERFLOW');
    // And the next session after those runs normally.
    expect(run(await restored(), '1 + 1')).toBe('2');
  }, 60_000);

  it('runs one session at a time', async () => {
    const warm = warmStart();
    const session = await warm.open({ cpu, boot: { seed: 1 } });
    await expect(warm.open({ cpu, boot: { seed: 1 } })).rejects.toMatchObject({ code: 'CRASHED' });
    session.dispose();
    (await warm.open({ cpu, boot: { seed: 1 } })).dispose();
  });
});
