import { afterAll, describe, expect, it } from 'vitest';
import { SandboxError } from '../../sandbox/sandbox-error.js';
import { createSandboxPool } from './backtest-pool.js';
import { candlesOf } from './test-fixtures.js';

const pool = createSandboxPool({ size: 1, cpuTimeMs: 30_000 });
afterAll(() => pool.close());

const closes = Array.from({ length: 3000 }, (_, i) => 100 + 10 * Math.sin(i / 40) + 3 * Math.sin(i / 7) + (i % 11) / 5);
const candles = { 'BTC/USDT': candlesOf(closes.map((c) => [c, c + 0.5, c - 0.5, c] as [number, number, number, number])) };

const SMA_CROSS = `export const meta = { params: { fast: { type: 'int', default: 5, min: 1 }, slow: { type: 'int', default: 20, min: 2 } } };
export function onCandle(ctx, c) {
  const f = ctx.indicators.sma(c.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(c.symbol, ctx.params.slow);
  if (f > s && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  if (f < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;

describe('runTrials: a sweep of one strategy over the same candles in one child', () => {
  it('answers, for every parameter set in order, what a backtest with those parameters answers', async () => {
    const sets = [
      { fast: '3', slow: '30' },
      { fast: '5', slow: '20' },
      { fast: '10', slow: '50' },
    ];
    const progress: number[] = [];
    const trials = await pool.runTrials({ source: SMA_CROSS, candles }, sets, { onProgress: (done) => progress.push(done) });
    expect(trials.map((t) => t.params)).toEqual(sets);
    expect(progress.at(-1)).toBe(3);
    for (const [k, params] of sets.entries()) {
      const alone = await pool.runBacktest({ source: SMA_CROSS, candles, params });
      const trial = trials[k]!;
      if (!trial.ok) throw new Error(`trial ${k} failed: ${trial.error.message}`);
      expect(trial.used).toEqual({ fast: Number(params.fast), slow: Number(params.slow) });
      expect(trial.trades).toBe(alone.trades.length);
      expect(trial.metrics).toEqual(alone.metrics);
    }
    // Different parameters, different results: the sweep is not answering one run three times.
    expect(new Set(trials.map((t) => (t.ok ? t.metrics.totalReturn : Number.NaN))).size).toBe(3);
  });

  it('keeps nothing of one trial for the next: module variables, globals and the seeded random start afresh', async () => {
    // Trades on the first candle only when nothing was left behind; draws from Math.random, which restarts from the seed.
    const source = `let calls = 0;
      export function onCandle(ctx, c) {
        calls++;
        const fresh = calls === 1 && globalThis.leftBehind === undefined;
        globalThis.leftBehind = true;
        if (fresh && Math.random() < 2) ctx.buy(c.symbol, { quantity: 1 });
        if (calls === 10 && ctx.position(c.symbol)) ctx.close(c.symbol);
        if (calls === 20) ctx.log(String(Math.random()));
      }`;
    const trials = await pool.runTrials({ source, candles }, [{}, {}, {}, {}]);
    expect(trials).toHaveLength(4);
    for (const t of trials) {
      if (!t.ok) throw new Error(t.error.message);
      expect(t.trades).toBe(1);
      expect(t.metrics).toEqual(trials[0]!.ok ? trials[0]!.metrics : null);
    }
  });

  it('answers a failed trial as failed and runs the others', async () => {
    const source = `export const meta = { params: { crashAt: { type: 'int', default: 0 } } };
      let n = 0;
      export function onCandle(ctx, c) { if (++n === ctx.params.crashAt) throw new Error('crash at ' + n); }`;
    const trials = await pool.runTrials({ source, candles }, [{ crashAt: '0' }, { crashAt: '5' }, { crashAt: 'x' }, { crashAt: '0' }]);
    expect(trials.map((t) => t.ok)).toEqual([true, false, false, true]);
    expect(trials[1]).toMatchObject({ ok: false, error: { code: 'STRATEGY_ERROR', message: expect.stringMatching(/crash at 5/) } });
    expect(trials[2]).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMS' } });
  });

  it('stops soon after a cancel, and the pool runs the next job normally', async () => {
    const slow = `export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 1500; i++) x += i; }`;
    const controller = new AbortController();
    const progress: number[] = [];
    const job = pool.runTrials(
      { source: slow, candles },
      Array.from({ length: 500 }, () => ({})),
      {
        signal: controller.signal,
        onProgress: (done) => progress.push(done),
      },
    );
    // Cancel once a few trials are done (each takes a fraction of a second).
    await expect.poll(() => progress.at(-1) ?? 0, { timeout: 60_000, interval: 20 }).toBeGreaterThanOrEqual(2);
    const cancelledAt = performance.now();
    controller.abort();
    const error = await job.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).code).toBe('CANCELLED');
    expect(performance.now() - cancelledAt).toBeLessThan(5_000);
    const next = await pool.runTrials({ source: SMA_CROSS, candles }, [{ fast: '5', slow: '20' }]);
    expect(next[0]!.ok).toBe(true);
  });

  it('after a trial that ran out of memory, runs the next ones normally (in a fresh instance)', async () => {
    const small = createSandboxPool({ size: 1, cpuTimeMs: 30_000, memoryLimitBytes: 32 * 1024 * 1024 });
    try {
      const source = `export const meta = { params: { hog: { type: 'bool', default: false } } };
        const kept = [];
        export function onCandle(ctx, c) { if (ctx.params.hog) for (;;) kept.push({ x: kept.length, y: [c.close] }); }`;
      const trials = await small.runTrials({ source, candles }, [{ hog: 'false' }, { hog: 'true' }, { hog: 'false' }, { hog: 'false' }]);
      expect(trials.map((t) => (t.ok ? 'ok' : t.error.code))).toEqual(['ok', 'MEMORY_LIMIT', 'ok', 'ok']);
    } finally {
      await small.close();
    }
  });

  it('answers nothing for no parameter sets, without a child', async () => {
    expect(await pool.runTrials({ source: SMA_CROSS, candles }, [])).toEqual([]);
  });
});
