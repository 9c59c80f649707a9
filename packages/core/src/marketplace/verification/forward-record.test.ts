import { afterEach, describe, expect, it } from 'vitest';
import { appendPoints, decodePoints } from './equity-points.js';
import { advanceForwardRecord } from './forward-record.js';
import { runPlatformBacktest } from './platform-backtest.js';
import { harness, listed, type Harness } from './test-fixtures.js';

const HOUR = 3_600_000;
const open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

async function readyRecord() {
  const h = await harness('2025-03-10T12:00:30.000Z', { backtestDays: 30 });
  open.push(h);
  const { record, listing } = await listed(h);
  const ready = await runPlatformBacktest(h.deps, record);
  expect(ready?.status).toBe('ready');
  return { h, record: ready!, listing };
}

describe('the forward record', () => {
  it('gains candles as the clock moves on, and never rewrites its stored points', { timeout: 180_000 }, async () => {
    const { h, record, listing } = await readyRecord();
    // listed at 12:00:30: the first forward candle opens at 13:00 and closes at 14:00
    expect((await advanceForwardRecord(h.deps, record)).status).toBe('current');
    h.clock.advance(HOUR);
    expect((await advanceForwardRecord(h.deps, record)).status).toBe('current');
    h.clock.advance(HOUR);
    const first = await advanceForwardRecord(h.deps, record);
    expect(first.status).toBe('advanced');
    if (first.status !== 'advanced') return;
    expect(first.record.forward).toMatchObject({ candles: 1, lastCandleAt: '2025-03-10T13:00:00.000Z' });
    expect(decodePoints(first.record.forward.points).equity[0]).toBe(10_000);

    let current = first.record;
    const seen: Uint8Array[] = [current.forward.points!];
    for (const hours of [1, 5, 30, 48]) {
      h.clock.advance(hours * HOUR);
      const step = await advanceForwardRecord(h.deps, current);
      expect(step.status).toBe('advanced');
      if (step.status !== 'advanced') return;
      expect(step.added).toBe(hours);
      expect(step.record.forward.candles).toBe(current.forward.candles + hours);
      // every byte stored before is still there, in place
      const before = current.forward.points!;
      expect(Buffer.from(step.record.forward.points!.subarray(0, before.byteLength)).equals(Buffer.from(before))).toBe(true);
      current = step.record;
      seen.push(current.forward.points!);
    }
    const { times } = decodePoints(current.forward.points);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(HOUR);
    // what is stored is what was computed: recomputing never found a different earlier point
    expect(h.logger.lines.filter((l) => l.message.includes('differ'))).toEqual([]);

    const fwd = current.forward;
    expect(fwd.candles).toBe(85);
    expect(fwd.days).toBeCloseTo((Date.parse(fwd.lastCandleAt!) + HOUR - Date.parse(fwd.start)) / 86_400_000, 12);
    expect(fwd.metrics!.tradeCount).toBeGreaterThan(0);
    expect(fwd.metrics!.feesPaid).toBeGreaterThan(0);
    expect(fwd.metrics!.totalReturn).toBeCloseTo(decodePoints(fwd.points).equity[84]! / 10_000 - 1, 12);
    expect(fwd.equity.at(-1)!.time).toBe(fwd.lastCandleAt);
    expect(current.badge).toBe('insufficient');
    const summary = (await h.stratbox.store.listings.findById(listing.id))!.recordSummary!;
    expect(summary).toMatchObject({ forwardDays: fwd.days, forwardTrades: fwd.metrics!.tradeCount, forwardReturn: fwd.metrics!.totalReturn });

    // the same clock again: nothing new, nothing written
    expect((await advanceForwardRecord(h.deps, current)).status).toBe('current');
  });

  it('keeps a stored point that a recomputation disagrees with, and logs it', { timeout: 180_000 }, async () => {
    const { h, record } = await readyRecord();
    h.clock.advance(5 * HOUR);
    const step = await advanceForwardRecord(h.deps, record);
    expect(step.status).toBe('advanced');
    if (step.status !== 'advanced') return;
    // a stored point that is not what the run computes (as if the data had changed since)
    const stored = decodePoints(step.record.forward.points);
    const pairs = Array.from(stored.times, (t, i) => [t, i === 1 ? 12_345 : stored.equity[i]!] as [number, number]);
    const changed = await h.stratbox.store.verificationRecords.update(record.id, step.record.updatedAt, {
      forward: { ...step.record.forward, points: appendPoints(undefined, pairs) },
      updatedAt: new Date(Date.parse(step.record.updatedAt) + 1).toISOString(),
    });
    h.clock.advance(2 * HOUR);
    const next = await advanceForwardRecord(h.deps, changed!);
    expect(next.status).toBe('advanced');
    if (next.status !== 'advanced') return;
    expect(decodePoints(next.record.forward.points).equity[1]).toBe(12_345);
    expect(next.record.forward.candles).toBe(stored.times.length + 2);
    const warned = h.logger.lines.find((l) => l.level === 'warn' && l.message.includes('differ'));
    expect(warned?.fields).toMatchObject({ recordId: record.id, points: 1, first: new Date(stored.times[1]!).toISOString() });
  });
});
