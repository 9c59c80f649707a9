import { afterAll, describe, expect, it } from 'vitest';
import { candlesOf, flat } from './test-fixtures.js';
import { createSandboxPool, type BacktestProgress } from './backtest-pool.js';
import { SandboxError } from '../../sandbox/sandbox-error.js';

const pool = createSandboxPool({ size: 1, cpuTimeMs: 30_000, progressIntervalMs: 250 });
afterAll(() => pool.close());

const many = (n: number) => ({ 'BTC/USDT': candlesOf(Array.from({ length: n }, (_, i) => flat(100 + (i % 7)))) });
/** About 50 microseconds of work per candle. */
const SLOW = `export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 1500; i++) x += i; }`;

describe('progress and cancel', () => {
  it('reports progress a few times per second at most, and always a final report', async () => {
    const reports: (BacktestProgress & { at: number })[] = [];
    const started = performance.now();
    const r = await pool.runBacktest({ source: SLOW, candles: many(40_000) }, { onProgress: (p) => reports.push({ ...p, at: performance.now() }) });
    const seconds = (performance.now() - started) / 1000;
    expect(r.stats.bars).toBe(40_000);
    expect(reports.at(-1)).toMatchObject({ processedBars: 40_000, totalBars: 40_000, progress: 1 });
    expect(reports.length).toBeGreaterThan(1);
    expect(reports.length).toBeLessThanOrEqual(Math.ceil(seconds * 4) + 2);
    for (let i = 1; i < reports.length; i++) expect(reports[i]!.processedBars).toBeGreaterThan(reports[i - 1]!.processedBars);
  });

  it('stops a running job when cancelled, before its end, and runs the next job normally', async () => {
    const controller = new AbortController();
    const total = 400_000; // about 20 s of work: far more than the cancel takes
    const processed: number[] = [];
    const job = pool.runBacktest({ source: SLOW, candles: many(total) }, { signal: controller.signal, onProgress: (p) => processed.push(p.processedBars) });
    // Cancel once it is running (its first progress report), not at a guessed moment.
    await expect.poll(() => processed.length, { timeout: 60_000, interval: 20 }).toBeGreaterThan(0);
    controller.abort();
    const error = (await job.catch((e: unknown) => e)) as SandboxError;
    // Had the cancel been ignored, the job would have run to its end and resolved.
    expect(error).toBeInstanceOf(SandboxError);
    expect(error.code).toBe('CANCELLED');
    expect(processed.at(-1)).toBeLessThan(total);
    // A size-1 pool: the next job runs only once the cancelled one's child stopped or was replaced.
    const r = await pool.runBacktest({ source: `export function onCandle() {}`, candles: many(10) });
    expect(r.stats.bars).toBe(10);
  });

  it('cancels a queued job at once', async () => {
    const controller = new AbortController();
    const first = pool.runBacktest({ source: SLOW, candles: many(20_000) });
    const second = pool.runBacktest({ source: SLOW, candles: many(10) }, { signal: controller.signal });
    controller.abort();
    await expect(second).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect(first).resolves.toMatchObject({ stats: { bars: 20_000 } });
  });

  it('rejects a malformed job with INVALID_JOB without starting it', async () => {
    const candles = { 'BTC/USDT': candlesOf([flat(1), flat(2)]).reverse() };
    await expect(pool.runBacktest({ source: SLOW, candles })).rejects.toMatchObject({ code: 'INVALID_JOB' });
  });

  it('fails jobs with CRASHED when the child cannot start, instead of respawning forever', async () => {
    const broken = createSandboxPool({ size: 1, workerPath: '/nonexistent/worker-entry.js' });
    await expect(broken.runBacktest({ source: SLOW, candles: many(1) })).rejects.toMatchObject({
      code: 'CRASHED',
      message: expect.stringMatching(/could not start/),
    });
    await broken.close();
  });

  it('stops a strategy check whose top-level code blocks in a native call', async () => {
    const checker = createSandboxPool({ size: 1, inspectCpuTimeMs: 200 });
    // Stopped by a limit (which the message names), not by the test's timeout.
    await expect(checker.inspectStrategy('new Array(1e9).join();\nexport function onCandle() {}')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/wall-clock|CPU time/),
    });
    await expect(checker.inspectStrategy('export function onCandle() {}')).resolves.toMatchObject({ exports: { onCandle: 'function' } });
    await checker.close();
  });

  it('rejects jobs after close with POOL_CLOSED', async () => {
    const other = createSandboxPool({ size: 1 });
    await other.close();
    await expect(other.runBacktest({ source: SLOW, candles: many(1) })).rejects.toMatchObject({ code: 'POOL_CLOSED' });
  });
});
