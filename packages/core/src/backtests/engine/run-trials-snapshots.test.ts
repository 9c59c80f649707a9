import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool, type TrialOutcome } from './backtest-pool.js';
import { candlesOf } from './test-fixtures.js';

/*
 * Trials that start warm (the default: each trial starts from a snapshot of the guest runtime's
 * memory, quickjs-warm-start.ts) keep nothing of one trial for the next, and answer what trials
 * evaluated afresh (`snapshots: false`) answer.
 */
const pool = createSandboxPool({ size: 1, cpuTimeMs: 30_000, memoryLimitBytes: 64 * 1024 * 1024 });
afterAll(() => pool.close());

const closes = Array.from({ length: 600 }, (_, i) => 100 + 10 * Math.sin(i / 40) + 3 * Math.sin(i / 7));
const candles = { 'BTC/USDT': candlesOf(closes.map((c) => [c, c + 0.5, c - 0.5, c] as [number, number, number, number])) };

/**
 * On its first candle, logs what it finds (a module variable, its arrays, a global, a change to a
 * built-in, its first random draw); on its second, changes all of them and keeps `mb` MB of arrays.
 */
const MUTATING = `export const meta = { params: { mb: { type: 'int', default: 4, min: 0 } } };
let calls = 0;
const kept = [];
export function onCandle(ctx, c) {
  calls++;
  if (calls === 1) {
    ctx.log(JSON.stringify({ calls, kept: kept.length, global: typeof globalThis.leaked, builtin: typeof Array.prototype.leaked, random: Math.random() }));
  }
  if (calls === 2) {
    globalThis.leaked = { big: new Array(10000).fill('x') };
    Array.prototype.leaked = 1;
    for (let i = 0; i < 1000; i++) Math.random();
    for (let i = 0; i < ctx.params.mb * 2; i++) kept.push(new Float64Array(65536).fill(i));
  }
  if (calls === 3) ctx.log('kept ' + kept.length);
}`;

function logsOf(trials: TrialOutcome[]): string[][] {
  return trials.map((t) => {
    if (!t.ok) throw new Error(`${t.error.code}: ${t.error.message}`);
    return (t.logs ?? []).map((l) => l.message);
  });
}

describe('runTrials with snapshots: each trial starts fresh', () => {
  it('a module variable, a global, a built-in, the random and big arrays changed in trial 1 show nowhere in trial 2', async () => {
    const sets = [{ mb: '4' }, { mb: '4' }, { mb: '0' }, { mb: '4' }];
    const trials = await pool.runTrials({ source: MUTATING, candles }, sets, { logs: true });
    const logs = logsOf(trials);
    const first = JSON.parse(logs[0]![0]!) as { random: number };
    expect(first).toMatchObject({ calls: 1, kept: 0, global: 'undefined', builtin: 'undefined' });
    for (const [k, lines] of logs.entries()) {
      expect(lines[0]).toBe(logs[0]![0]); // the same first draw of the seeded random: its state starts afresh
      expect(lines[1]).toBe(`kept ${Number(sets[k]!.mb) * 2}`);
    }
    // The same answers as trials that evaluate the runtime afresh.
    const cold = await pool.runTrials({ source: MUTATING, candles }, sets, { logs: true, snapshots: false });
    expect(logsOf(cold)).toEqual(logs);
    expect(cold.map((t) => (t.ok ? t.metrics : null))).toEqual(trials.map((t) => (t.ok ? t.metrics : null)));
  });

  it('arrays that filled most of the memory limit in one trial leave the whole limit to the next', async () => {
    // 40 MB kept per trial under a 64 MB limit: had one trial's arrays stayed, the next would run out of memory.
    const trials = await pool.runTrials({ source: MUTATING, candles }, [{ mb: '40' }, { mb: '40' }, { mb: '40' }], { logs: true });
    expect(logsOf(trials).map((lines) => lines[1])).toEqual(['kept 80', 'kept 80', 'kept 80']);
  });

  it('a seed per trial: each trial draws from its own seed, as without snapshots', async () => {
    const source = `export function onCandle(ctx, c) { if (ctx.position(c.symbol) === null && Math.random() < 0.5) ctx.log(String(Math.random())); }`;
    const seeds = [1, 2, 1, 3];
    const warm = logsOf(await pool.runTrials({ source, candles }, [{}, {}, {}, {}], { logs: true, seeds }));
    const cold = logsOf(await pool.runTrials({ source, candles }, [{}, {}, {}, {}], { logs: true, seeds, snapshots: false }));
    expect(warm).toEqual(cold);
    expect(warm[2]).toEqual(warm[0]);
    expect(warm[1]).not.toEqual(warm[0]);
  });

  it('the SMA sweep answers the same metrics and trades with and without snapshots', async () => {
    const source = `export const meta = { params: { fast: { type: 'int', default: 5, min: 1 }, slow: { type: 'int', default: 20, min: 2 } } };
export function onCandle(ctx, c) {
  const f = ctx.indicators.sma(c.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(c.symbol, ctx.params.slow);
  if (f > s && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  if (f < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;
    const sets = Array.from({ length: 12 }, (_, k) => ({ fast: String(2 + k), slow: String(20 + 3 * k) }));
    const strip = (trials: TrialOutcome[]) => trials.map((t) => (t.ok ? { metrics: t.metrics, trades: t.trades, used: t.used } : t.error));
    const warm = await pool.runTrials({ source, candles }, sets);
    const cold = await pool.runTrials({ source, candles }, sets, { snapshots: false });
    expect(strip(warm)).toEqual(strip(cold));
    expect(new Set(warm.map((t) => (t.ok ? t.metrics.totalReturn : Number.NaN))).size).toBeGreaterThan(1);
  });
});
