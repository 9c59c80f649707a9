import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openQuickJsSession, type QuickJsSession } from './quickjs-session.js';
import { findQuickJsSpeedWasm } from './quickjs-speed-wasm.js';
import { DEFAULT_QUICKJS_BUILD, type QuickJSBuild, quickJSBuildOr } from './quickjs-variants.js';
import { createQuickJsWarmStart } from './quickjs-warm-start.js';
import { SandboxError } from './sandbox-error.js';

/** `run(code)` evaluates a script and answers its value as a string; errors described as the engine's guest does. */
const RUNTIME = `
let last = '["STRATEGY_ERROR","",""]';
export function createRuntime(bootJson) {
  return {
    run(code) { return String((0, eval)(code)); },
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
const runtime = { script: RUNTIME, filename: 'test-runtime.js', boot: null, functions: ['run'] as const };
const limitsOf = (build: QuickJSBuild) => ({ build, memoryLimitBytes: 32 * 1024 * 1024, stackLimitBytes: 256 * 1024 });

function run(session: QuickJsSession<Fn>, code: string): string {
  const arg = session.vm.newString(code);
  try {
    const h = session.call('run', arg);
    const text = session.vm.getString(h);
    h.dispose();
    return text;
  } finally {
    arg.dispose();
  }
}

async function failure(build: QuickJSBuild, code: string, timeMs = 2000): Promise<SandboxError> {
  const session = await openQuickJsSession<Fn>({ limits: limitsOf(build), cpu: { timeMs, per: 'session' }, runtime });
  try {
    run(session, code);
  } catch (error) {
    if (error instanceof SandboxError) return error;
    throw error;
  } finally {
    session.dispose();
  }
  throw new Error(`${build}: ${code} did not fail`);
}

/** Floating point, strings, objects, typed arrays, sorting, JSON and a closure-heavy loop: one string of it all. */
const WORKLOAD = `
(() => {
  let x = 0.1, acc = 0;
  const f = new Float64Array(4096);
  for (let i = 0; i < 20000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648 / 2147483648;
    f[i & 4095] = Math.sin(x) * Math.exp(x / 3) + Math.sqrt(x) - Math.log1p(x);
    acc += f[(i * 7) & 4095] / (1 + (i % 13));
  }
  const objs = Array.from({ length: 500 }, (_, i) => ({ id: i, v: f[i] * 1e6, s: 'k' + (i * 31 % 97) }));
  objs.sort((a, b) => a.v - b.v || a.id - b.id);
  const counter = (() => { let n = 0; return () => ++n; })();
  for (let i = 0; i < 10000; i++) counter();
  return JSON.stringify([acc, objs.slice(0, 5), objs.map((o) => o.s).join('').length, counter(), (1 / 3).toFixed(17), 2 ** 53 + 1, Math.atan2(acc, 7)]);
})()`;

describe('QuickJS builds', () => {
  it('the default is quickjs-speed; a child argument that names no build gives the default', () => {
    expect(DEFAULT_QUICKJS_BUILD).toBe('quickjs-speed');
    expect(quickJSBuildOr('quickjs')).toBe('quickjs');
    expect(quickJSBuildOr('quickjs-ng')).toBe('quickjs-ng');
    expect(quickJSBuildOr(undefined)).toBe('quickjs-speed');
    expect(quickJSBuildOr('nope')).toBe('quickjs-speed');
  });

  it('quickjs-speed is built from the release build installed, and is the file its build recorded', () => {
    const path = findQuickJsSpeedWasm();
    if (path === null) throw new Error('wasm/quickjs-speed.wasm was not built (pnpm install runs scripts/build-quickjs-speed.mjs)');
    expect(path).toBe(fileURLToPath(new URL('../../wasm/quickjs-speed.wasm', import.meta.url)));
    const stamp = JSON.parse(readFileSync(path.replace(/\.wasm$/, '.json'), 'utf8')) as { input: string; output: string };
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    const release = readFileSync(createRequire(join(path, '..', '..', 'package.json')).resolve('@jitl/quickjs-wasmfile-release-sync/wasm'));
    const speed = readFileSync(path);
    expect(stamp.input).toBe(sha(release));
    expect(stamp.output).toBe(sha(speed));
    // Re-optimized, not a copy; with the release build's exports.
    expect(sha(speed)).not.toBe(sha(release));
    const exports = (bytes: Buffer<ArrayBuffer>) => WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name);
    expect(exports(speed)).toEqual(exports(release));
  });

  it('quickjs-speed answers exactly what the release build answers', async () => {
    const answers: string[] = [];
    for (const build of ['quickjs-speed', 'quickjs'] as const) {
      const session = await openQuickJsSession<Fn>({ limits: limitsOf(build), cpu: { timeMs: 10_000, per: 'session' }, runtime });
      try {
        answers.push(run(session, WORKLOAD));
      } finally {
        session.dispose();
      }
    }
    expect(answers[0]).toBe(answers[1]);
    expect(JSON.parse(answers[0]!)).toHaveLength(7);
  });

  describe.each(['quickjs-speed', 'quickjs'] as const)('%s enforces the limits', (build) => {
    it('memory: a guest that keeps allocating stops with MEMORY_LIMIT', async () => {
      const error = await failure(build, 'const keep = []; for (;;) keep.push(new Array(100000).fill(1.5));', 20_000);
      expect(error.code).toBe('MEMORY_LIMIT');
    });

    it('interrupt: an endless loop stops at the CPU budget with TIMEOUT', async () => {
      const started = performance.now();
      const error = await failure(build, 'for (;;) {}', 300);
      expect(error.code).toBe('TIMEOUT');
      expect(performance.now() - started).toBeLessThan(20_000);
    });

    it('stack: endless recursion stops with STACK_OVERFLOW', async () => {
      const error = await failure(build, 'function f(n) { return f(n + 1) + 1; } f(0)');
      expect(error.code).toBe('STACK_OVERFLOW');
    });

    it('a warm start restores the runtime on it', async () => {
      const warm = createQuickJsWarmStart<Fn>({ limits: limitsOf(build), runtime });
      for (let k = 0; k < 3; k++) {
        const session = await warm.open({ cpu: { timeMs: 2000, per: 'session' }, boot: null });
        try {
          expect(run(session, 'globalThis.seen = (globalThis.seen || 0) + 1')).toBe('1');
        } finally {
          session.dispose();
        }
      }
      expect(warm.stats()).toEqual({ builds: 1, restores: 2, loadedRestores: 0 });
    });
  });
});
