import { afterAll, describe, expect, it } from 'vitest';
import { SandboxError } from '../../sandbox/sandbox-error.js';
import { createSandboxPool, type TrialOutcome } from './backtest-pool.js';
import { candlesOf, MINUTE, T0 } from './test-fixtures.js';

const pool = createSandboxPool({ size: 1, cpuTimeMs: 30_000 });
afterAll(() => pool.close());

const closes = Array.from({ length: 3000 }, (_, i) => 100 + 10 * Math.sin(i / 40) + 3 * Math.sin(i / 7) + (i % 11) / 5);
const rows = () => candlesOf(closes.map((c) => [c, c + 0.5, c - 0.5, c] as [number, number, number, number]));
const candles = { 'BTC/USDT': rows() };

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

  it('keeps nothing of one trial for the next: module variables, globals, the seeded random and what it saw start afresh', async () => {
    // Trades on the first candle only when nothing was left behind; draws from Math.random, which restarts from the seed;
    // scribbles on the candle and the history it is given, which the next trial must not see.
    const source = `let calls = 0;
      export function onCandle(ctx, c) {
        calls++;
        const fresh = calls === 1 && globalThis.leftBehind === undefined;
        globalThis.leftBehind = true;
        const h = ctx.history(c.symbol, 5);
        if (calls === 1) ctx.log('first ' + c.close + ' ' + h.close.length);
        try { c.close = 1; h.close[0] = 1; } catch {}
        if (fresh && Math.random() < 2) ctx.buy(c.symbol, { quantity: 1 });
        if (calls === 10 && ctx.position(c.symbol)) ctx.close(c.symbol);
        if (calls === 20) ctx.log(String(Math.random()));
      }`;
    const sameAsFirst = (trials: TrialOutcome[]) => {
      expect(trials).toHaveLength(4);
      for (const t of trials) {
        if (!t.ok) throw new Error(t.error.message);
        expect(t.trades).toBe(1);
        expect(t.metrics).toEqual(trials[0]!.ok ? trials[0]!.metrics : null);
        expect(t.logs).toEqual(trials[0]!.logs);
      }
    };
    sameAsFirst(await pool.runTrials({ source, candles }, [{}, {}, {}, {}], { logs: true }));
    // Again over a window of the candles the child kept from the first call (sent only their key).
    const shipped = pool.stats().candleBytesShipped;
    const window = { start: T0 + 500 * MINUTE, end: T0 + 900 * MINUTE, warmup: 3 };
    const windowed = await pool.runTrials({ source, candles }, [{}, {}, {}, {}], { logs: true, window });
    expect(pool.stats().candleBytesShipped).toBe(shipped);
    sameAsFirst(windowed);
    expect(windowed[0]!.logs![0]!.message).toBe(`first ${closes[500]} 4`);
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

  it('stops before its last trial when cancelled, and the pool runs the next job normally', async () => {
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
    controller.abort();
    const error = await job.catch((e: unknown) => e);
    // Had the cancel been ignored, all 500 trials would have run and the job resolved.
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).code).toBe('CANCELLED');
    expect(progress.at(-1)).toBeLessThan(500);
    // A size-1 pool: the next job runs only once the cancelled one's child stopped or was replaced.
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

/*
 * runTrials sends a sweep's candles to a child once: later calls with the same candles send only
 * their key, and a child without them (a new one after a crash, or another child of the pool)
 * still answers right.
 */
const CANDLE_BYTES = 3000 * 6 * 8;
const P1 = { fast: '3', slow: '30' };
const P2 = { fast: '8', slow: '40' };

function metricsOf(trials: TrialOutcome[]) {
  return trials.map((t) => {
    if (!t.ok) throw new Error(t.error.message);
    return t.metrics;
  });
}

describe('runTrials ships the candles to a child once', () => {
  // A pool of its own, whose count of candle bytes sent starts at 0.
  const one = createSandboxPool({ size: 1, cpuTimeMs: 30_000 });
  afterAll(() => one.close());
  const job = { source: SMA_CROSS, candles: { 'BTC/USDT': rows() } };

  it('two slices of a sweep on one child: the candles cross once, and the second slice answers as the first', { timeout: 60_000 }, async () => {
    const first = await one.runTrials(job, [P1, P2]);
    expect(one.stats().candleBytesShipped).toBe(CANDLE_BYTES);
    const second = await one.runTrials(job, [P2, P1], { window: { start: 0, end: Number.MAX_SAFE_INTEGER, warmup: 0 } });
    expect(one.stats().candleBytesShipped).toBe(CANDLE_BYTES);
    expect(metricsOf(second)).toEqual(metricsOf(first).reverse());
    // The same candles in a new object of the same job (the digest, not the object, names them): not sent again.
    await one.runTrials({ ...job, candles: { 'BTC/USDT': rows() } }, [P1]);
    expect(one.stats().candleBytesShipped).toBe(CANDLE_BYTES);
    // Other candles are: the child holds two sets.
    const other = { ...job, candles: { 'BTC/USDT': rows().slice(0, 2250) } };
    await one.runTrials(other, [P1]);
    await one.runTrials(job, [P1]);
    await one.runTrials(other, [P1]);
    expect(one.stats().candleBytesShipped).toBe(CANDLE_BYTES + (CANDLE_BYTES * 3) / 4);
  });

  it('a child killed and replaced gets the candles again, and answers as before', { timeout: 60_000 }, async () => {
    const before = await one.runTrials(job, [P1, P2]);
    const shipped = one.stats().candleBytesShipped;
    const [pid] = one.stats().pids;
    process.kill(pid!, 'SIGKILL');
    await expect.poll(() => one.stats().pids.includes(pid!), { timeout: 10_000, interval: 20 }).toBe(false);
    const after = await one.runTrials(job, [P1, P2]);
    expect(one.stats().pids).not.toContain(pid);
    expect(one.stats().candleBytesShipped).toBe(shipped + CANDLE_BYTES);
    expect(metricsOf(after)).toEqual(metricsOf(before));
  });

  it('a slice taken by a child that lacks the candles is sent again with them: the right answer, and both children hold them after', {
    timeout: 90_000,
  }, async () => {
    const two = createSandboxPool({ size: 2, maxRunningPerTenant: 2, cpuTimeMs: 60_000 });
    try {
      const [expected] = metricsOf(await two.runTrials(job, [P1]));
      expect(two.stats().children).toBe(1);
      // Keep the child that holds the candles busy (a run of many short candles, which stops soon
      // after a cancel): the next slice goes to a second child, sent only the key.
      const blocker = new AbortController();
      const many = candlesOf(Array.from({ length: 40_000 }, () => [100, 101, 99, 100] as [number, number, number, number]));
      const busy = two
        .runBacktest({ source: 'export function onCandle() { for (let i = 0; i < 20000; i++); }', candles: { 'X/Y': many } }, { signal: blocker.signal })
        .catch((error: unknown) => error);
      await expect.poll(() => two.stats().busy, { timeout: 10_000, interval: 20 }).toBe(1);
      const shipped = two.stats().candleBytesShipped;
      const [other] = metricsOf(await two.runTrials(job, [P1]));
      expect(two.stats()).toMatchObject({ children: 2, busy: 1 });
      blocker.abort();
      expect(await busy).toMatchObject({ code: 'CANCELLED' });
      expect(other).toEqual(expected);
      expect(two.stats().children).toBe(2); // the busy child stopped by itself, not killed
      // Sent once more, with the candles, after the second child said it had none.
      expect(two.stats().candleBytesShipped).toBe(shipped + CANDLE_BYTES);
      // Both hold them now: two slices at once, one on each child, send nothing.
      await Promise.all([two.runTrials(job, [P1]), two.runTrials(job, [P2])]);
      expect(two.stats().candleBytesShipped).toBe(shipped + CANDLE_BYTES);
    } finally {
      await two.close();
    }
  });
});
