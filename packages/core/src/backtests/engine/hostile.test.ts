import { afterAll, describe, expect, it } from 'vitest';
import { candlesOf, flat } from './test-fixtures.js';
import { createSandboxPool, type SandboxPool } from './backtest-pool.js';
import { SandboxError } from '../../sandbox/sandbox-error.js';

/** One child, small limits: every hostile job must fail cleanly and the next one must succeed. */
const pool = createSandboxPool({
  size: 1,
  cpuTimeMs: 400,
  wallTimeMs: 2500,
  memoryLimitBytes: 32 * 1024 * 1024,
  rssLimitBytes: 600 * 1024 * 1024,
  maxLogLines: 100,
  cancelGraceMs: 300,
});
/** A pool whose QuickJS heap limit is out of reach, so only the host's RSS cap can stop a memory hog. */
const rssPool = createSandboxPool({
  size: 1,
  cpuTimeMs: 10_000,
  wallTimeMs: 15_000,
  memoryLimitBytes: 3 * 1024 * 1024 * 1024,
  rssLimitBytes: 350 * 1024 * 1024,
});
/** Memory hogs hit a small QuickJS heap limit; GC work near the limit needs a little more CPU time. */
const memPool = createSandboxPool({ size: 1, cpuTimeMs: 5000, memoryLimitBytes: 16 * 1024 * 1024 });
afterAll(() => Promise.all([pool.close(), rssPool.close(), memPool.close()]));

const CANDLES = { 'BTC/USDT': candlesOf(Array.from({ length: 50 }, (_, i) => flat(100 + i))) };
const NORMAL = `export function onCandle(ctx, c) { if (!ctx.position(c.symbol)) ctx.buy(c.symbol, { quantity: 1 }); }`;

function runOn(p: SandboxPool, source: string) {
  return p.runBacktest({ source, candles: CANDLES });
}

/**
 * The job's error. How soon it fails is the pools' own limits' business (CPU and wall time, each
 * answered with its code, which the cases assert), not a stopwatch's here: a loaded machine
 * stretches wall time, and a hung job fails the test by its timeout.
 */
async function failure(p: SandboxPool, source: string): Promise<SandboxError> {
  const error = await runOn(p, source).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SandboxError);
  return error as SandboxError;
}

async function expectHealthy(p: SandboxPool) {
  const r = await runOn(p, NORMAL);
  expect(r.trades).toHaveLength(1);
}

const onCandle = (body: string) => `export function onCandle(ctx, c) { ${body} }`;

describe('hostile strategies', () => {
  const cases: [string, string, SandboxError['code'], RegExp][] = [
    ['an infinite loop', onCandle('for (;;) {}'), 'TIMEOUT', /CPU time/],
    ['an infinite loop while loading', `while (true) {}\n${NORMAL}`, 'TIMEOUT', /CPU time/],
    ['deep recursion', `function f(n) { return f(n + 1) + 1; }\n${onCandle('f(0);')}`, 'STACK_OVERFLOW', /Stack overflow/],
    // Array.prototype.join recursing through nested arrays (JSON.stringify of them could run out of its CPU budget first on a slow machine).
    ['deep recursion inside a built-in', onCandle('let a = []; for (let i = 0; i < 3e4; i++) a = [a]; String(a);'), 'STACK_OVERFLOW', /Stack overflow/],
    ['throw 42', onCandle('throw 42;'), 'STRATEGY_ERROR', /non-Error value: 42/],
    ['throw null', onCandle('throw null;'), 'STRATEGY_ERROR', /non-Error value: null/],
    ['throw undefined', onCandle('throw undefined;'), 'STRATEGY_ERROR', /non-Error value: undefined/],
    ['throw a string', onCandle("throw 'nope';"), 'STRATEGY_ERROR', /threw a string: "nope"/],
    ['an error whose message getter throws', onCandle("throw { get message() { throw new Error('x') }, name: 'Weird' };"), 'STRATEGY_ERROR', /Weird/],
    ['an error whose getter loops forever', onCandle('throw { get message() { for (;;) {} } };'), 'TIMEOUT', /CPU time/],
    ['a log flood', onCandle("for (let i = 0; i < 1e6; i++) ctx.log('spam', i);"), 'LOG_LIMIT', /log/],
    ['a log flood that swallows the error', onCandle("for (let i = 0; i < 1e4; i++) { try { ctx.log('spam', i); } catch {} }"), 'LOG_LIMIT', /log/],
    ['a long native call: new Array(1e9).join()', onCandle('new Array(1e9).join();'), 'TIMEOUT', /wall-clock/],
    ['a type error', onCandle('null.x;'), 'STRATEGY_ERROR', /TypeError/],
  ];
  for (const [name, source, code, message] of cases) {
    it(`fails ${name} with ${code}, then runs the next job normally`, async () => {
      const error = await failure(pool, source);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
      if (code === 'TIMEOUT') expect(error.cpuMs).toBeGreaterThanOrEqual(400);
      await expectHealthy(pool);
    });
  }

  const memoryCases: [string, string][] = [
    ['a memory bomb', onCandle('const a = []; for (;;) a.push({ x: a.length, y: [a.length] });')],
    ['a huge string', onCandle("let s = 'x'; for (;;) s += s;")],
    ['a huge typed array', onCandle('const a = new Float64Array(1e8); a.fill(1);')],
  ];
  for (const [name, source] of memoryCases) {
    it(`fails ${name} with MEMORY_LIMIT, then runs the next job normally`, async () => {
      const error = await failure(memPool, source);
      expect(`${error.code}: ${error.message}`).toMatch(/^MEMORY_LIMIT/);
      expect(error.message).toMatch(/memory/);
      await expectHealthy(memPool);
    });
  }

  it('stops big arrays at the QuickJS heap limit, which counts allocations, not bytes, by the growth of the WASM memory', async () => {
    // Before the growth check this passed the 16 MiB limit and ran to the host's 1 GiB RSS cap.
    const error = await failure(memPool, onCandle('const a = []; for (;;) a.push(new Array(100000).fill(1));'));
    expect(error.code).toBe('MEMORY_LIMIT');
    expect(error.message).toBe(`The strategy ran out of memory (limit ${16 * 1024 * 1024} bytes)`);
    await expectHealthy(memPool);
  });

  it('kills a child whose resident memory passes the cap, even when QuickJS would allow it', async () => {
    const error = await failure(rssPool, onCandle("const a = []; for (;;) a.push('x'.repeat(1e6) + a.length);"));
    expect(error.code).toBe('MEMORY_LIMIT');
    expect(error.message).toMatch(/process went past/);
    await expectHealthy(rssPool);
  });

  it('fails with CRASHED when the child is killed mid-run, and replaces it', async () => {
    const slow = onCandle('let x = 0; for (let i = 0; i < 2e4; i++) x += i;');
    const pidsBefore = rssPool.stats().pids;
    const p = rssPool.runBacktest(
      { source: slow, candles: { 'BTC/USDT': candlesOf(Array.from({ length: 5000 }, () => flat(100))) } },
      {
        onProgress: () => {
          for (const pid of rssPool.stats().pids) process.kill(pid, 'SIGKILL');
        },
      },
    );
    const error = (await p.catch((e: unknown) => e)) as SandboxError;
    expect(error).toBeInstanceOf(SandboxError);
    expect(error.code).toBe('CRASHED');
    expect(error.message).toMatch(/SIGKILL/);
    await expectHealthy(rssPool);
    expect(rssPool.stats().pids).not.toEqual(pidsBefore);
  });

  it('gives the guest no host objects: no require, process, timers, fetch or host globals', async () => {
    const source = onCandle(`
      if (c.close !== 100) return;
      ctx.log(typeof require, typeof process, typeof setTimeout, typeof fetch, typeof module, typeof globalThis.process, typeof WebAssembly, typeof XMLHttpRequest);
      const viaFunction = (function () { return this; }).constructor('return typeof process')();
      ctx.log(viaFunction, typeof ctx.constructor.constructor('return globalThis')().require);
      let threw = false; try { eval('import("fs")'); } catch (e) { threw = true; }
      ctx.log(Object.keys(globalThis).sort().join(','));
    `);
    const r = await runOn(pool, source);
    expect(r.logs[0]!.message).toBe('undefined undefined undefined undefined undefined undefined undefined undefined');
    expect(r.logs[1]!.message).toBe('undefined undefined');
    expect(r.logs[2]!.message).not.toMatch(/require|process|__|host|stratbox/i);
  });

  it('gives the guest the candle time as its clock and a seeded Math.random', async () => {
    const source = onCandle(`ctx.log(Date.now() === c.time, new Date().getTime() === c.time, ctx.now() === c.time, Math.random(), ctx.random());`);
    const one = await pool.runBacktest({ source, candles: CANDLES, seed: 7 });
    const two = await pool.runBacktest({ source, candles: CANDLES, seed: 7 });
    const other = await pool.runBacktest({ source, candles: CANDLES, seed: 8 });
    expect(one.logs.every((l) => l.message.startsWith('true true true '))).toBe(true);
    expect(one.logs.map((l) => l.message)).toEqual(two.logs.map((l) => l.message));
    expect(one.logs.map((l) => l.message)).not.toEqual(other.logs.map((l) => l.message));
    const values = one.logs.flatMap((l) => l.message.split(' ').slice(3).map(Number));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Set(values).size).toBe(values.length);
  });
});
