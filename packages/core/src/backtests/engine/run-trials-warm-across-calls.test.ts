import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool, type TrialOutcome } from './backtest-pool.js';
import { candlesOf } from './test-fixtures.js';

/*
 * A child keeps its warm start (the guest runtime evaluated once, quickjs-warm-start.ts) from one
 * runTrials call to the next, so an optimization's slices pay it once: nothing of a call's trials
 * reaches the next call's, also after a trial failed, a call was cancelled, or under other limits.
 */
const pool = createSandboxPool({ size: 1, cpuTimeMs: 30_000, memoryLimitBytes: 64 * 1024 * 1024 });
afterAll(() => pool.close());

const closes = Array.from({ length: 300 }, (_, i) => 100 + 10 * Math.sin(i / 40));
const candles = { 'BTC/USDT': candlesOf(closes.map((c) => [c, c + 0.5, c - 0.5, c] as [number, number, number, number])) };

/** Logs what it finds on its first candle, then changes a module variable, a global, a built-in and the random, and keeps `mb` MB; `fail: 1` throws on candle 5. */
const MUTATING = `export const meta = { params: { mb: { type: 'int', default: 4, min: 0 }, fail: { type: 'int', default: 0, min: 0 } } };
let calls = 0;
const kept = [];
export function onCandle(ctx, c) {
  calls++;
  if (calls === 1) ctx.log(JSON.stringify({ kept: kept.length, global: typeof globalThis.leaked, builtin: typeof Array.prototype.leaked, random: Math.random() }));
  if (calls === 2) {
    globalThis.leaked = 1;
    Array.prototype.leaked = 1;
    for (let i = 0; i < 1000; i++) Math.random();
    for (let i = 0; i < ctx.params.mb * 2; i++) kept.push(new Float64Array(65536).fill(i));
  }
  if (calls === 5 && ctx.params.fail === 1) throw new Error('boom');
}`;

const firstLines = (trials: TrialOutcome[]) => trials.map((t) => (t.ok ? t.logs?.[0]?.message : t.error.code));

describe('runTrials: the warm start kept across calls', () => {
  it('each call answers what a fresh runtime answers, whatever the calls before it did', async () => {
    const cold = firstLines(await pool.runTrials({ source: MUTATING, candles }, [{ mb: '4' }], { logs: true, snapshots: false }));
    const expected = JSON.parse(cold[0]!) as Record<string, unknown>;
    expect(expected).toMatchObject({ kept: 0, global: 'undefined', builtin: 'undefined' });
    for (let call = 0; call < 4; call++) {
      // a call with a failed trial in the middle, then calls after it
      const sets: Record<string, string>[] = call === 1 ? [{ mb: '40' }, { fail: '1' }, { mb: '4' }] : [{ mb: '40' }, { mb: '4' }];
      const lines = firstLines(await pool.runTrials({ source: MUTATING, candles }, sets, { logs: true }));
      for (const [k, line] of lines.entries()) expect(line, `call ${call} trial ${k}`).toBe(sets[k]!.fail === '1' ? 'STRATEGY_ERROR' : cold[0]);
    }
  });

  it('a cancelled call leaves the next call a working warm start', async () => {
    const controller = new AbortController();
    const slow = `export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 200000; i++) x += i; }`;
    // Cancelled mid-call: once its first trial is done, with five to go.
    const cancelled = pool.runTrials({ source: slow, candles }, [{}, {}, {}, {}, {}, {}], {
      signal: controller.signal,
      onProgress: (done) => {
        if (done >= 1) controller.abort();
      },
    });
    await expect(cancelled).rejects.toMatchObject({ code: 'CANCELLED' });
    const lines = firstLines(await pool.runTrials({ source: MUTATING, candles }, [{ mb: '4' }, { mb: '4' }], { logs: true }));
    expect(lines[1]).toBe(lines[0]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ kept: 0, global: 'undefined', builtin: 'undefined' });
  });
});
