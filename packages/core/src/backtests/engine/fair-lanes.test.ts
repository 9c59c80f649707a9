import { afterAll, describe, expect, it } from 'vitest';
import { candlesOf, flat } from './test-fixtures.js';
import { isStratboxError } from '../../errors/stratbox-error.js';
import { createSandboxPool } from './backtest-pool.js';
import { SandboxError } from '../../sandbox/sandbox-error.js';

const candles = (n: number) => ({ 'BTC/USDT': candlesOf(Array.from({ length: n }, (_, i) => flat(100 + (i % 7)))) });
const LOOP = `export function onCandle() { for (;;) {} }`;
const QUICK = `export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 200; i++) x += i; }`;
const OK = `export const meta = { timeframe: '1h' };\nexport function onCandle(ctx, c) {}`;

/** Settles to the error a promise rejects with (or throws if it resolves). */
async function rejection(p: Promise<unknown>): Promise<SandboxError> {
  const outcome = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(outcome instanceof SandboxError)) throw new Error(`expected a SandboxError, got ${String(outcome)}`);
  return outcome;
}

async function until(check: () => boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('sandbox pool lanes and fairness', () => {
  const pool = createSandboxPool({ size: 1, cpuTimeMs: 60_000, wallTimeMs: 120_000 });
  afterAll(() => pool.close());

  it('answers a strategy check while the only backtest child runs an endless loop', async () => {
    const controller = new AbortController();
    let loopSettled = false;
    const loop = pool.runBacktest({ source: LOOP, candles: candles(10) }, { signal: controller.signal, tenant: 'a' }).finally(() => (loopSettled = true));
    await until(() => pool.stats().busy === 1, 'the loop to start');
    const info = await pool.inspectStrategy(OK, { tenant: 'b' });
    expect(info.meta.timeframe).toBe('1h');
    expect(loopSettled).toBe(false); // the check did not wait for the run
    controller.abort();
    expect((await rejection(loop)).code).toBe('CANCELLED');
  });

  it("runs another tenant's job right after the running one, ahead of the first tenant's queue", async () => {
    const finished: string[] = [];
    const run = (tenant: string, name: string) => pool.runBacktest({ source: QUICK, candles: candles(2_000) }, { tenant }).then(() => void finished.push(name));
    const a = [1, 2, 3, 4, 5].map((i) => run('a', `a${i}`));
    await until(() => pool.stats().busy === 1, 'the first job to start');
    const b = run('b', 'b1');
    await Promise.all([...a, b]);
    expect(finished.indexOf('b1')).toBeLessThanOrEqual(1);
    expect(finished.filter((f) => f.startsWith('a'))).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  });

  it('refuses a parser-bomb corpus with 400 each, and checks a normal source right after', async () => {
    const head = 'export function onCandle(ctx,c){}\n';
    const corpus = {
      brackets: `export function onCandle(ctx,c){ const x = ${'['.repeat(250_000)}${']'.repeat(250_000)}; }`,
      braces: `${head}const y = ${'{a:'.repeat(80_000)}1${'}'.repeat(80_000)};`,
      blocks: `${head}${'{'.repeat(150_000)}${'}'.repeat(150_000)}`,
      parentheses: `${head}const z = ${'('.repeat(200_000)}1${')'.repeat(200_000)};`,
      templates: `${head}const t = ${'`${'.repeat(30_000)}1${'}`'.repeat(30_000)};`,
      regex: `${head}const r = /^(a+)+$/; r.test("${'a'.repeat(40)}!");`,
      plus: `${head}const s = ${'1+'.repeat(240_000)}1;`,
    };
    for (const [name, source] of Object.entries(corpus)) {
      const error = await pool.inspectStrategy(source).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isStratboxError(error) ? [name, error.status, error.code] : [name, String(error)]).toEqual([name, 400, 'VALIDATION_FAILED']);
      await expect(pool.inspectStrategy(OK)).resolves.toMatchObject({ meta: { timeframe: '1h' } });
    }
  });

  it('loads a strategy nested as deep as the source check allows', async () => {
    const n = 120;
    const source = `export function onCandle(ctx, c) {}\nexport const deep = ${'['.repeat(n)}1${']'.repeat(n)};`;
    await expect(pool.inspectStrategy(source)).resolves.toMatchObject({ exports: { deep: 'object' } });
  });
});

describe('sandbox pool caps and metering', () => {
  it('runs at most maxRunningPerTenant jobs of one tenant at once, even with a free child', async () => {
    const pool = createSandboxPool({ size: 2, maxRunningPerTenant: 1, cpuTimeMs: 60_000, wallTimeMs: 120_000 });
    try {
      const controller = new AbortController();
      const first = pool.runBacktest({ source: LOOP, candles: candles(10) }, { signal: controller.signal, tenant: 'a' });
      const second = pool.runBacktest({ source: QUICK, candles: candles(10) }, { tenant: 'a' });
      await until(() => pool.stats().busy === 1 && pool.stats().queued === 1, 'one running, one waiting');
      // another tenant takes the free child at once
      await expect(pool.runBacktest({ source: QUICK, candles: candles(10) }, { tenant: 'b' })).resolves.toMatchObject({ stats: { bars: 10 } });
      expect(pool.stats().queued).toBe(1);
      controller.abort();
      await rejection(first);
      await expect(second).resolves.toMatchObject({ stats: { bars: 10 } });
    } finally {
      await pool.close();
    }
  });

  it('reports the CPU a run used when it throws, when it times out, and when the host kills it', async () => {
    const pool = createSandboxPool({ size: 1, cpuTimeMs: 1_000, wallTimeMs: 60_000 });
    const killing = createSandboxPool({ size: 1, cpuTimeMs: 60_000, wallTimeMs: 1_500 });
    try {
      const burnThenThrow = `export function onCandle() { let x = 0; for (let i = 0; i < 2e6; i++) x += i; throw new Error('boom ' + x); }`;
      const thrown = await rejection(pool.runBacktest({ source: burnThenThrow, candles: candles(1) }));
      expect(thrown.code).toBe('STRATEGY_ERROR');
      expect(thrown.cpuMs).toBeGreaterThan(50);

      const timedOut = await rejection(pool.runBacktest({ source: LOOP, candles: candles(1) }));
      expect(timedOut.code).toBe('TIMEOUT');
      expect(timedOut.cpuMs).toBeGreaterThanOrEqual(1_000);

      // past the wall-clock deadline the host kills the child: its CPU is read from the system
      const killed = await rejection(killing.runBacktest({ source: LOOP, candles: candles(1) }));
      expect(killed.code).toBe('TIMEOUT');
      expect(killed.message).toMatch(/wall-clock/);
      expect(killed.cpuMs).toBeGreaterThan(100);
      expect(killed.cpuMs).toBeLessThan(60_000);
    } finally {
      await Promise.all([pool.close(), killing.close()]);
    }
  });
});
